#!/usr/bin/env bash
# The load runs of docs/reliability.md: 1 000 000 tiny tasks and 1 000 tasks
# of 64 MiB through one pool of 2 workers (Release build), printing the
# parent's memory and descriptor figures; exits non-zero if they grow past
# their bounds (tests/load/load_run.cc). Then the kill storm
# (tests/executor/kill_storm_test.cc) under each start method with
# FERRY_STORM_TASKS tasks per submitting thread (100 000: 400 000 tasks).
#   scripts/load_run.sh [TINY_TASKS LARGE_TASKS LARGE_MIB WORKERS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" release load_run kill_storm_test ferry-worker >/dev/null
build=$("$root/scripts/build_dir.sh" release)
echo "machine: $(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%d)"
"$build/tests/load_run" "${1:-1000000}" "${2:-1000}" "${3:-64}" "${4:-2}"
for method in spawn fork plugin; do
  echo "kill storm, start method $method:"
  FERRY_TEST_START=$method FERRY_STORM_TASKS=${FERRY_STORM_TASKS:-100000} \
    timeout 1200 "$build/tests/executor/kill_storm_test" --gtest_brief=1
done
