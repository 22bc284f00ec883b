#!/bin/sh
# Bad input: exit code 2, stderr exactly the one line EXPECTED, nothing on stdout, and no report
# written. Usage: refused_exactly.sh EXPECTED GEMMBENCH [ARGS...] (a --json report path is added).
expected=$1
shift
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$@" --json "$dir/report.json" >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/err"
fail() { echo "refused_exactly: $*"; exit 1; }
[ "$rc" -eq 2 ] || fail "exit code $rc, expected 2"
[ "$(cat "$dir/err")" = "$expected" ] || fail "stderr is not: $expected"
[ ! -s "$dir/out" ] || fail "stdout is not empty: $(cat "$dir/out")"
[ ! -e "$dir/report.json" ] || fail "a report was written"
exit 0
