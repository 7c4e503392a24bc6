#!/usr/bin/env bash
# Side by side: the readers and the runner overhead of two builds of the bench binary,
# alternating A and B so both see the same noise. Build each from its own checkout first:
#   (cd <checkout>/bench && CARGO_TARGET_DIR=<dir> cargo build --release)
# Usage: bench/compare.sh A/skillgate-bench B/skillgate-bench [runs]
set -euo pipefail
a=$1 b=$2 runs=${3:-5}
dir=${BENCH_DIR:-/tmp/skillgate-bench}
mkdir -p "$dir"
[ -f "$dir/junit.xml" ] || "$a" gen-junit "$dir/junit.xml" 1000000
[ -f "$dir/tap.tap" ] || "$a" gen-tap "$dir/tap.tap" 1000000
median() { sort -n | sed -n "$(( (runs + 1) / 2 ))p"; }
for file in junit.xml tap.tap; do
  speeds_a=() speeds_b=()
  for _ in $(seq "$runs"); do
    speeds_a+=("$("$a" skillgate "$dir/$file" | sed -E 's/.* = ([0-9]+) MB\/s.*/\1/')")
    speeds_b+=("$("$b" skillgate "$dir/$file" | sed -E 's/.* = ([0-9]+) MB\/s.*/\1/')")
  done
  echo "$file: A median $(printf '%s\n' "${speeds_a[@]}" | median) MB/s, B median $(printf '%s\n' "${speeds_b[@]}" | median) MB/s ($runs runs each)"
done
overhead_a=() overhead_b=()
for _ in $(seq "$runs"); do
  overhead_a+=("$("$a" runner-overhead 100 | sed -E 's/.*: ([0-9.]+) ms of gate overhead.*/\1/')")
  overhead_b+=("$("$b" runner-overhead 100 | sed -E 's/.*: ([0-9.]+) ms of gate overhead.*/\1/')")
done
echo "runner overhead: A median $(printf '%s\n' "${overhead_a[@]}" | median) ms, B median $(printf '%s\n' "${overhead_b[@]}" | median) ms a suite"
