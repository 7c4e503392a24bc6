#!/usr/bin/env bash
# Test suite for slugify-title, run by skillgate as `bash test.sh` from this directory.
# Writes a TAP stream to stdout and lcov coverage of scripts/ to $SKILLGATE_REPORT_DIR/lcov.info.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

report_dir="${SKILLGATE_REPORT_DIR:-.reports}"
mkdir -p "$report_dir"
raw_lcov="$(mktemp)"
trap 'rm -f "$raw_lcov"' EXIT

status=0
node --test --experimental-test-coverage \
  --test-reporter=tap --test-reporter-destination=stdout \
  --test-reporter=lcov --test-reporter-destination="$raw_lcov" \
  tests/slugify.test.js || status=$?

# node's lcov also lists the test files; keep only the records of the code under test.
keep_scripts_only() {
  local line keep=0
  while IFS= read -r line; do
    case "$line" in
      SF:scripts/*) keep=1 ;;
      SF:*) keep=0 ;;
    esac
    if ((keep)); then printf '%s\n' "$line"; fi
  done
}

if [[ -s $raw_lcov ]]; then keep_scripts_only <"$raw_lcov" >"$report_dir/lcov.info"; fi
exit "$status"
