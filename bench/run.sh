#!/usr/bin/env bash
# Benchmark the report readers: a ~500 MB JUnit file with 1M cases and a 1M-test TAP stream,
# read by skillgate and (JUnit) by junit-parser, one process each; counts are checked against
# what the generator wrote. Figures go to BENCHMARKS.md. Needs ~1 GB free in $BENCH_DIR
# (default /tmp/skillgate-bench). Run on an idle machine.
set -euo pipefail
cd "$(dirname "$0")"
dir=${BENCH_DIR:-/tmp/skillgate-bench}
cases=${CASES:-1000000}
mkdir -p "$dir"
cargo build --release --quiet
bin=target/release/skillgate-bench
[ -f "$dir/junit.xml" ] || "$bin" gen-junit "$dir/junit.xml" "$cases"
[ -f "$dir/tap.tap" ] || "$bin" gen-tap "$dir/tap.tap" "$cases"

measure() { # reader file
  out=$("$bin" "$1" "$2") || { echo "$1 failed on $2"; return 1; }
  echo "$out"
  expected=$(cat "${2%.*}.expected")
  case "$out" in *"$expected"*) ;; *) echo "COUNTS WRONG: expected $expected"; return 1 ;; esac
}

echo "== JUnit $(du -h "$dir/junit.xml" | cut -f1)"
for _ in 1 2 3; do measure skillgate "$dir/junit.xml"; done
measure junit-parser "$dir/junit.xml" || true
echo "== TAP $(du -h "$dir/tap.tap" | cut -f1)"
for _ in 1 2 3; do measure skillgate "$dir/tap.tap"; done
