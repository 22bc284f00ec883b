#!/bin/sh
# scripts/update_latest.sh without a GPU: a stand-in gemmbench that writes a small gzip report for
# each --json it is given, so the script's folder (bench_results/<gpu>/latest), one report per
# shipped config, --only and latest/README.md are checked here; the real runs are the GPU host's.
# Usage: update_latest.sh SOURCE_DIR
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >"$tmp/gemmbench" <<'PY'
#!/usr/bin/env python3
import gzip, json, sys
args = sys.argv[1:]
if '--dry-run' in args:
    print('3 cases (3 problems), 1.0e+12 FLOP')
    sys.exit(0)
out = args[args.index('--json') + 1]
config = args[args.index('--config') + 1]
doc = {'metadata': {'tool': 'gemmbench', 'schema_version': 1, 'git_commit': 'abc123def456',
                    'date_utc': '2026-11-28T00:00:00Z', 'config_file': config,
                    'device': {'name': 'NVIDIA H100 80GB HBM3', 'driver_version': '580.159.04'}},
       'results': [],
       'summary': {'complete': True, 'rows_planned': 3, 'rows_written': 3, 'ok': 2, 'failed': 1,
                   'skipped': 0, 'errors': 0}}
with gzip.open(out, 'wt') as f:
    json.dump(doc, f)
sys.exit(1)  # a FAILED row: the script goes on and says so
PY
chmod +x "$tmp/gemmbench"
cd "$src"
shipped=$(find configs -maxdepth 1 -name "*.json" | wc -l)

# The folder comes from the device name.
GEMMBENCH=$tmp/gemmbench GPU_NAME="NVIDIA H200" scripts/update_latest.sh --dry-run |
  grep -q "NVIDIA H200 -> bench_results/h200/latest" || fail "h200 slug"
GEMMBENCH=$tmp/gemmbench GPU_NAME="NVIDIA H100 80GB HBM3" scripts/update_latest.sh --dry-run |
  grep -q "NVIDIA H100 80GB HBM3 -> bench_results/h100/latest" || fail "h100 slug"
GEMMBENCH=$tmp/gemmbench GPU_NAME="NVIDIA A100-SXM4-80GB" scripts/update_latest.sh --dry-run |
  grep -q "> bench_results/a100/latest" || fail "a100 slug"

# Every shipped config (not configs/dev): one report each; the run's FAILED rows make exit 1.
rc=0
GEMMBENCH=$tmp/gemmbench GPU_NAME="NVIDIA H100 80GB HBM3" scripts/update_latest.sh "$tmp/latest" \
  >"$tmp/log" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "exit $rc, expected 1 (a FAILED row)"
[ "$(find "$tmp/latest" -name "*.json.gz" | wc -l)" = "$shipped" ] || fail "not one report per shipped config"
for c in configs/*.json; do
  n=$(basename "$c" .json)
  grep -q "^| \`$n.json.gz\` | \`configs/$n.json\` | abc123def456 | 2026-11-28T00:00:00Z | NVIDIA H100 80GB HBM3, driver 580.159.04 | 3 of 3: 2 ok, 1 FAILED" \
    "$tmp/latest/README.md" || fail "README line for $n"
done

# --only runs some and keeps the others' lines; a name that is not shipped is exit 2.
rm "$tmp/latest/default.json.gz"
GEMMBENCH=$tmp/gemmbench GPU_NAME="NVIDIA H100 80GB HBM3" scripts/update_latest.sh --only default \
  "$tmp/latest" >/dev/null 2>&1 || true
[ "$(grep -c '^| `' "$tmp/latest/README.md")" = "$shipped" ] || fail "--only lost README lines"
rc=0
GEMMBENCH=$tmp/gemmbench GPU_NAME=x scripts/update_latest.sh --only nonesuch "$tmp/x" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "--only nonesuch: exit $rc, expected 2"
# --index over reports run elsewhere: one whose parts ran on two boards and were merged says so.
mkdir -p "$tmp/idx"
python3 - "$tmp/idx/llm_fp8_decode.json.gz" <<'PY'
import gzip, json, sys
part = lambda serial: {'device': {'name': 'NVIDIA H200', 'serial': serial}, 'complete': True}
doc = {'metadata': {'git_commit': 'abc123def456', 'date_utc': '2026-11-30T00:00:00Z',
                    'device': {'name': 'NVIDIA H200', 'driver_version': '580.159.04'},
                    'merged_from': [part('1653724024831'), part('1653724032999')]},
       'results': [],
       'summary': {'complete': True, 'rows_planned': 4, 'rows_written': 4, 'ok': 4, 'failed': 0,
                   'skipped': 0, 'errors': 0}}
with gzip.open(sys.argv[1], 'wt') as f:
    json.dump(doc, f)
PY
scripts/update_latest.sh --index "$tmp/idx" >/dev/null 2>&1 || fail "--index exited non-zero"
grep -q "| NVIDIA H200 x2 (2 shards merged), driver 580.159.04 | 4 of 4: 4 ok" "$tmp/idx/README.md" ||
  fail "a merged report's boards: $(grep '^| `' "$tmp/idx/README.md")"
echo "update_latest.sh: ok ($shipped shipped configs)"
