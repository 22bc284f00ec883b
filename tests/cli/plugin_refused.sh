#!/bin/sh
# A refused plugin: exit code 2, exactly one line on stderr that contains EXPECTED, nothing on
# stdout, and no report written. Usage: plugin_refused.sh EXPECTED GEMMBENCH [ARGS...]
# (a --json report path is added).
expected=$1
shift
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$@" --json "$dir/report.json" >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/err"
fail() { echo "plugin_refused: $*"; exit 1; }
[ "$rc" -eq 2 ] || fail "exit code $rc, expected 2"
[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "stderr has $(wc -l <"$dir/err") lines, expected 1"
[ ! -s "$dir/out" ] || fail "stdout is not empty: $(cat "$dir/out")"
grep -qF -- "$expected" "$dir/err" || fail "stderr lacks: $expected"
[ ! -e "$dir/report.json" ] || fail "a report was written"
exit 0
