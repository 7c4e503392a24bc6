#!/usr/bin/env bash
# Test suite for todo-scan, run by skillgate as `bash test.sh` from this directory.
# A plain harness with its own counters: details of failures go to stderr, and the last line on
# stdout is "N passed, N failed". Exit 1 if a test fails. It writes no report files.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

fixture="$(mktemp -d)"
trap 'rm -rf "$fixture"' EXIT
passed=0
failed=0

# expect NAME EXPECTED_STDOUT EXPECTED_EXIT ARGS...: run todo-scan.sh from the fixture directory.
expect() {
  local name=$1 want=$2 want_status=$3 got status
  shift 3
  got=$(cd "$fixture" && bash "$OLDPWD/scripts/todo-scan.sh" "$@" 2>/dev/null)
  status=$?
  if [[ $got == "$want" && $status -eq $want_status ]]; then
    passed=$((passed + 1))
    return
  fi
  failed=$((failed + 1))
  printf 'FAILED: %s\n  expected (exit %s):\n%s\n  got (exit %s):\n%s\n' \
    "$name" "$want_status" "$want" "$status" "$got" >&2
}

mkdir -p "$fixture/src/lib" "$fixture/src/.cache"
printf '%s\n' 'import os' '# TODO: handle symlinks' 'x = 1  # FIXME(alice): off by one' \
  '# TODOS and XXXL are ordinary words' >"$fixture/src/app.py"
printf '%s\n' '/* XXX */' 'int main(void) { return 0; } // HACK - temporary' >"$fixture/src/lib/util.c"
printf '%s\n' 'TODO: generated, ignore' >"$fixture/src/.cache/state"
printf '%s' 'last line without newline TODO finish' >"$fixture/notes.txt"
printf '%s\n' '# Notes' 'Nothing to do here.' >"$fixture/README.md"

expect "lists markers with file, line, tag and note" \
  "$(printf '%s\n' 'src/app.py:2: TODO: handle symlinks' 'src/app.py:3: FIXME: off by one')" 0 src/app.py
expect "recurses into directories and skips hidden ones" \
  "$(printf '%s\n' 'src/app.py:2: TODO: handle symlinks' 'src/app.py:3: FIXME: off by one' \
    'src/lib/util.c:1: XXX: */' 'src/lib/util.c:2: HACK: temporary')" 0 src
expect "reads a last line without a newline" "notes.txt:1: TODO: finish" 0 notes.txt
expect "--count totals every tag, zeros included" \
  "$(printf '%s\n' 'TODO 2' 'FIXME 1' 'XXX 0' 'HACK 0')" 0 --count src/app.py notes.txt
expect "a file without markers prints nothing" "" 0 README.md
expect "a missing path exits 2" "" 2 no-such-dir
expect "no path at all exits 2" "" 2 --count

echo "$passed passed, $failed failed"
exit $((failed > 0))
