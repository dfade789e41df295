#!/usr/bin/env bash
# Builds ferry in Release and runs the whole comparison: ferry against raw
# cereal, the machine's floor (a socketpair ping-pong, memcpy) and loky
# (Debian's python3-joblib, run with /usr/bin/python3) in one run, then prints
# the table of docs/performance.md. Under 10 minutes on a 2-core machine.
#   scripts/bench.sh [MAX_WORKERS_FOR_SCALING]   (default 16; BUSY=1: one CPU kept busy)
set -euo pipefail
source "$(dirname "$0")/bench_build.sh" python3-joblib
busy_if_asked  # BUSY=1: the loaded case of the targets (scripts/bench_build.sh)
echo "machine: $(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%d)" >&2
# Repetitions in random order, and their medians: ferry's row and cereal's
# then see the same moments of a noisy machine.
"$build/bench/serialize_bench" --benchmark_format=json --benchmark_min_time=0.1 --benchmark_repetitions=5 \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
  >"$out/serialize.json" 2>/dev/null
for mode in roundtrip pingpong hops spin throughput floor large shared memcpy memory start; do
  "$build/bench/executor_bench" "$mode" >>"$out/ferry.jsonl"
done
"$build/bench/executor_bench" scaling "${1:-16}" >>"$out/ferry.jsonl"
for mode in roundtrip throughput large start memory; do
  /usr/bin/python3 "$root/bench/loky_bench.py" "$mode" >>"$out/loky.jsonl"
done
python3 "$root/bench/compare.py" "$out"
echo "module search directory (bench/search_path_bench.cc):"
"$build/bench/search_path_bench"
