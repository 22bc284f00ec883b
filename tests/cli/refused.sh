#!/bin/sh
# Bad input refused: exit code 2, exactly one line on stderr, nothing on stdout, and no report
# written. MODE `exact`: that line is EXPECTED; `contains`: it contains EXPECTED.
# Usage: refused.sh MODE EXPECTED GEMMBENCH [ARGS...] (a --json report path is added).
mode=$1
expected=$2
shift 2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$@" --json "$dir/report.json" >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/err"
fail() { echo "refused: $*"; exit 1; }
[ "$rc" -eq 2 ] || fail "exit code $rc, expected 2"
[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "stderr has $(wc -l <"$dir/err") lines, expected 1"
[ ! -s "$dir/out" ] || fail "stdout is not empty: $(cat "$dir/out")"
case $mode in
  exact) [ "$(cat "$dir/err")" = "$expected" ] || fail "stderr is not: $expected" ;;
  contains) grep -qF -- "$expected" "$dir/err" || fail "stderr lacks: $expected" ;;
  *) fail "unknown mode '$mode' (exact or contains)" ;;
esac
[ ! -e "$dir/report.json" ] || fail "a report was written"
exit 0
