# Shared by the CLI test scripts (sourced): the binary, a scratch folder removed at exit, and the
# checks every case uses. The script is run from the repository root with $SGAI set.
set -uo pipefail
SGAI=$(realpath "${SGAI:?set SGAI to the sgai binary}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
# run CMD...: sets rc, out (stdout) and err (stderr)
run() {
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}
expect_rc() { [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1; stderr: $err"; }
# The sgai error is exactly one line, starting with 'sgai: error:', and contains $1.
expect_one_error_line() {
  local n
  n=$(grep -c '^sgai: error:' "$tmp/err")
  [ "$n" -eq 1 ] || fail "expected one 'sgai: error:' line, got $n: $err"
  grep '^sgai: error:' "$tmp/err" | grep -qF -- "$1" || fail "error line lacks '$1': $err"
}
# No SimGrid abort text on stderr.
no_backtrace() {
  ! grep -qE 'Backtrace|xbt_assert|Impossible Did Happen|CRITICAL' "$tmp/err" || fail "SimGrid's abort text: $err"
}
# Nothing hidden left in a folder: no staging folder, no temporary file.
nothing_left() {
  local left
  left=$(find "$1" -name '.*sgai-tmp-*' -o -name '*.tmp-[0-9]*' 2>/dev/null)
  [ -z "$left" ] || fail "left behind: $left"
}
shared_or_skip() { [ -d ../shared/data ] || { echo "no ../shared/data: skipped"; exit 77; }; }
# db_count DATABASE QUERY: the first column of the first row of a query on an SQLite file.
db_count() { /usr/bin/python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$@"; }
