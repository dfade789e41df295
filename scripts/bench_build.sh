#!/usr/bin/env bash
# Sourced by scripts/bench.sh and scripts/bench_mpi.sh: installs what they
# need (the arguments: Debian packages beyond libbenchmark-dev), builds the
# bench preset (Release, the benchmarks only) into $build (build-bench/, or
# $FERRY_BUILD_DIR), and sets $root and $out, a temporary directory removed
# on exit. With BUSY=1, busy_if_asked starts a shell loop that keeps one
# CPU busy until the script exits ($busy: its pid).
#   source scripts/bench_build.sh PACKAGE...
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/install_deps.sh" libbenchmark-dev "$@"
"$root/scripts/build.sh" bench >/dev/null
build=$("$root/scripts/build_dir.sh" bench)
out=$(mktemp -d)
busy=
bench_cleanup() {
  if [ -n "$busy" ]; then kill "$busy" 2>/dev/null || true; fi
  rm -rf "$out"
}
trap bench_cleanup EXIT
busy_if_asked() {
  if [ "${BUSY:-0}" = 1 ]; then
    sh -c 'while :; do :; done' &
    busy=$!
  fi
}
