#!/usr/bin/env bash
# Benchmark the report readers (a ~500 MB JUnit file with 1M cases, a 1M-test TAP stream) and
# the suite runner (parallelism, per-suite overhead, memory under a 1 GiB flood). The files are
# read by skillgate and (JUnit) by junit-parser, one process each; counts are checked against
# what the generator wrote. Each reader runs $RUNS times (default 7) and the median throughput
# is printed with the range: the VM is shared and single runs vary by ±25 %.
# The audit trail is measured apart (BENCHMARKS.md, "Audit trail in segments"): skillgate-bench
# audit-simulate RESULTS.json 10000 DIR (12 min), audit-trail RESULTS.json RUNS DIR (git mode).
# Figures go to BENCHMARKS.md. Needs ~1 GB free in $BENCH_DIR (default /tmp/skillgate-bench).
set -euo pipefail
cd "$(dirname "$0")"
dir=${BENCH_DIR:-/tmp/skillgate-bench}
cases=${CASES:-1000000}
runs=${RUNS:-7}
mkdir -p "$dir"
cargo build --release --quiet
bin=target/release/skillgate-bench
[ -f "$dir/junit.xml" ] || "$bin" gen-junit "$dir/junit.xml" "$cases"
[ -f "$dir/tap.tap" ] || "$bin" gen-tap "$dir/tap.tap" "$cases"

measure() { # reader file runs
  local speeds=()
  for _ in $(seq "$3"); do
    out=$("$bin" "$1" "$2") || { echo "$1 failed on $2"; return 1; }
    echo "  $out"
    expected=$(cat "${2%.*}.expected")
    case "$out" in *"$expected"*) ;; *) echo "COUNTS WRONG: expected $expected"; return 1 ;; esac
    speeds+=("$(sed -E 's/.* = ([0-9]+) MB\/s.*/\1/' <<<"$out")")
  done
  sorted=$(printf '%s\n' "${speeds[@]}" | sort -n)
  median=$(sed -n "$(( ($3 + 1) / 2 ))p" <<<"$sorted")
  echo "$1: median $median MB/s (range $(head -1 <<<"$sorted")–$(tail -1 <<<"$sorted") MB/s over $3 runs)"
}

echo "== JUnit $(du -h "$dir/junit.xml" | cut -f1)"
measure skillgate "$dir/junit.xml" "$runs"
measure junit-parser "$dir/junit.xml" 3 || true
echo "== TAP $(du -h "$dir/tap.tap" | cut -f1)"
measure skillgate "$dir/tap.tap" "$runs"

echo "== Runner"
"$bin" runner-parallel
"$bin" runner-overhead 100
"$bin" runner-flood 1073741824
