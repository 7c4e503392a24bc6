#!/usr/bin/env bash
# Run every fuzz target (or the ones named as arguments) for SECONDS_PER_TARGET (default 300),
# JOBS at a time (default 2), from the repository root. Crashes land in fuzz/artifacts/<target>/; the log of each run in
# fuzz/logs/<target>.log ends with libFuzzer's own figures (runs, coverage).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${SECONDS_PER_TARGET:-300}
jobs=${JOBS:-2}
export RUSTC_BOOTSTRAP=1
cargo fuzz build -O
mkdir -p fuzz/logs
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} sh -c \
  "cargo fuzz run -O {} -- -max_total_time=$seconds -rss_limit_mb=512 -max_len=65536 > fuzz/logs/{}.log 2>&1 && echo '{}: ok' || echo '{}: FAILED (see fuzz/logs/{}.log)'"
