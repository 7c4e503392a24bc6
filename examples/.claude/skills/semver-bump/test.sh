#!/usr/bin/env bash
# Test suite for semver-bump, run by skillgate as `bash test.sh` from this directory.
# Prints TAP version 13 on stdout (failures carry a YAML diagnostic block); exit 1 if a test fails.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

stderr_file="$(mktemp)"
trap 'rm -f "$stderr_file"' EXIT
count=0
failed=0

# yaml_string TEXT: TEXT as a double-quoted YAML scalar.
yaml_string() {
  local text=${1//\\/\\\\}
  text=${text//\"/\\\"}
  printf '"%s"' "${text//$'\n'/\\n}"
}

# check NAME EXPECTED_STDOUT EXPECTED_EXIT ARGS...: run the script with ARGS, print one TAP line.
check() {
  local name=$1 want=$2 want_status=$3 got status
  shift 3
  got=$(bash scripts/bump-version.sh "$@" 2>"$stderr_file")
  status=$?
  count=$((count + 1))
  if [[ $got == "$want" && $status -eq $want_status ]]; then
    echo "ok $count - $name"
    return
  fi
  failed=$((failed + 1))
  echo "not ok $count - $name"
  echo "  ---"
  echo "  message: $(yaml_string "expected '$want' (exit $want_status), got '$got' (exit $status)")"
  echo "  severity: fail"
  echo "  command: $(yaml_string "scripts/bump-version.sh $*")"
  echo "  stderr: $(yaml_string "$(<"$stderr_file")")"
  echo "  ..."
}

echo "TAP version 13"
echo "1..5"
check "patch bump increments the patch number" "1.2.4" 0 patch 1.2.3
check "major bump resets minor and patch" "2.0.0" 0 major 1.9.7
check "minor bump resets the patch number" "v1.3.0" 0 minor v1.2.3
check "malformed version is rejected with exit 2" "" 2 patch 1.2
check "patch bump of a pre-release releases it" "1.4.0" 0 patch 1.4.0-rc.1
exit $((failed > 0))
