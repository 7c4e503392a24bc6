#!/usr/bin/env bash
# Test suite for csv-summary, run by skillgate as `bash test.sh` from this directory.
# Writes $SKILLGATE_REPORT_DIR/junit.xml (test results) and lcov.info (line coverage of scripts/).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
exec python3 -B tests/run.py
