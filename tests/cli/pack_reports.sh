#!/bin/sh
# scripts/dev/pack_reports.sh: every report a device call left comes back in reports.tar.gz, and
# the call's own files stay beside it. Run many times over fresh folders: the packing once raced
# with find and removed its own archive (2026-11-30), which a single run may not show.
# Usage: pack_reports.sh SOURCE_DIR
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

i=0
while [ $i -lt 25 ]; do
  d=$tmp/out$i
  mkdir -p "$d/lane0" "$d/lane1/deep"
  for f in lane0/a.json lane0/b.json lane0/logs.tar.gz lane1/c.json lane1/deep/d.jsonl; do
    head -c 20000 /dev/urandom >"$d/$f"
  done
  echo boards >"$d/boards.txt"
  echo logs >"$d/all_logs.tar.gz"
  echo lane >"$d/lane0_session.txt"
  "$src/scripts/dev/pack_reports.sh" "$d" || fail "run $i: exit $?"
  [ -f "$d/reports.tar.gz" ] || fail "run $i: no reports.tar.gz"
  got=$(tar -tzf "$d/reports.tar.gz" | grep -v '/$' | sed 's|^\./||' | sort | tr '\n' ' ')
  want="lane0/a.json lane0/b.json lane0/logs.tar.gz lane1/c.json lane1/deep/d.jsonl "
  [ "$got" = "$want" ] || fail "run $i: the archive holds '$got', not '$want'"
  for f in boards.txt all_logs.tar.gz lane0_session.txt; do
    [ -f "$d/$f" ] || fail "run $i: $f was packed or removed"
  done
  [ ! -e "$d/lane0" ] && [ ! -e "$d/lane1" ] || fail "run $i: packed files or their folders left behind"
  i=$((i + 1))
done
echo "pack_reports: 25 runs, every report packed, the call's own files kept"
