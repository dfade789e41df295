#!/usr/bin/env bash
# Builds ferry in Release and runs the whole comparison: ferry against raw
# cereal, the machine's floor (a socketpair ping-pong, memcpy) and loky
# (Debian's python3-joblib, run with /usr/bin/python3) in one run, then prints
# the table of docs/performance.md. Under 10 minutes on a 2-core machine.
#   scripts/bench.sh [MAX_WORKERS_FOR_SCALING]   (default 16)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FERRY_BENCH_BUILD_DIR:-$root/build-release}
"$root/scripts/install_deps.sh" libbenchmark-dev python3-joblib
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DFERRY_BUILD_BENCHMARKS=ON \
  -DFERRY_BUILD_TESTS=OFF -DFERRY_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j"${FERRY_JOBS:-2}" >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "machine: $(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%d)" >&2
"$build/bench/serialize_bench" --benchmark_format=json --benchmark_min_time=0.5 >"$out/serialize.json" 2>/dev/null
for mode in roundtrip pingpong throughput large memcpy start; do
  "$build/bench/executor_bench" "$mode" >>"$out/ferry.jsonl"
done
"$build/bench/executor_bench" scaling "${1:-16}" >>"$out/ferry.jsonl"
for mode in roundtrip throughput large start; do
  /usr/bin/python3 "$root/bench/loky_bench.py" "$mode" >>"$out/loky.jsonl"
done
python3 "$root/bench/compare.py" "$out"
echo "module search directory (bench/search_path_bench.cc):"
"$build/bench/search_path_bench"
