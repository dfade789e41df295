#!/usr/bin/env bash
# The load runs of docs/reliability.md: 1 000 000 tiny tasks and 1 000 tasks
# of 64 MiB through one pool of 2 workers (Release build), printing the
# parent's memory and descriptor figures; exits non-zero if they grow past
# their bounds (tests/load/load_run.cc).
#   scripts/load_run.sh [TINY_TASKS LARGE_TASKS LARGE_MIB WORKERS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FERRY_LOAD_BUILD_DIR:-$root/build-release}
"$root/scripts/install_deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DFERRY_BUILD_TESTS=ON >/dev/null
cmake --build "$build" -j"${FERRY_JOBS:-2}" --target load_run >/dev/null
echo "machine: $(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%d)"
"$build/tests/load_run" "${1:-1000000}" "${2:-1000}" "${3:-64}" "${4:-2}"
