#!/usr/bin/env bash
# Sourced by scripts/bench.sh and scripts/bench_mpi.sh: installs what they
# need (the arguments: Debian packages beyond libbenchmark-dev), builds
# ferry in Release with the benchmarks into $build (FERRY_BENCH_BUILD_DIR,
# default build-release/), and sets $root and $out, a temporary directory
# removed on exit.
#   source scripts/bench_build.sh PACKAGE...
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FERRY_BENCH_BUILD_DIR:-$root/build-release}
"$root/scripts/install_deps.sh" libbenchmark-dev "$@"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DFERRY_BUILD_BENCHMARKS=ON \
  -DFERRY_BUILD_TESTS=OFF -DFERRY_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j"${FERRY_JOBS:-2}" >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
