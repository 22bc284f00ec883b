#!/bin/sh
# SIGINT during a sweep: gemmbench finishes the sample in flight, writes the summary as
# interrupted and exits 130; the JSON report holds every finished row. Skipped (exit 77) where
# no GPU can run the sweep.
bin=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$bin" --kernel sgemm_naive --m 512:8192:512 --n 2048 --k 2048 --min-time 0.5 --quiet \
  --json "$out/r.json" 2>"$out/err" &
pid=$!
i=0
while [ $i -lt 8 ] && kill -0 $pid 2>/dev/null; do sleep 0.5; i=$((i + 1)); done
if ! kill -0 $pid 2>/dev/null; then
  wait $pid
  rc=$?
  if [ $rc -eq 3 ]; then echo "SKIP: no usable GPU: $(cat "$out/err")"; exit 77; fi
  echo "gemmbench ended before the signal with exit code $rc"; cat "$out/err"; exit 1
fi
kill -INT $pid
wait $pid
rc=$?
cat "$out/err"
[ $rc -eq 130 ] || { echo "exit code $rc, expected 130"; exit 1; }
python3 - "$out/r.json" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["summary"]
assert s["interrupted"] and s["interrupted_by"] == "SIGINT", s
assert not s["complete"], s
assert 0 < len(doc["results"]) == s["rows_written"] < s["rows_planned"], s
print("interrupted after", s["rows_written"], "of", s["rows_planned"], "rows")
PY
