#!/usr/bin/env bash
# Sourced by scripts/bench.sh and scripts/bench_mpi.sh: installs what they
# need (the arguments: Debian packages beyond libbenchmark-dev), builds the
# bench preset (Release, the benchmarks only) into $build (build-bench/, or
# $FERRY_BUILD_DIR), and sets $root and $out, a temporary directory removed
# on exit.
#   source scripts/bench_build.sh PACKAGE...
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/install_deps.sh" libbenchmark-dev "$@"
"$root/scripts/build.sh" bench >/dev/null
build=$("$root/scripts/build_dir.sh" bench)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
