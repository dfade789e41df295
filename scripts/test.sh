#!/usr/bin/env bash
# The README's second command: installs what is missing, builds everything
# (the default preset), runs the whole test suite, and prints where the time
# went (scripts/test_times.py): the build, the tests, the tests by group.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Chromium, headless, opens the timeline's page (tests/executor/timeline_test.py).
"$root/scripts/install_deps.sh" chromium
started=$(date +%s)
"$root/scripts/build.sh" default
built=$(date +%s)
build=$("$root/scripts/build_dir.sh" default)
status=0
# One test more at a time than the build's jobs: at two, CPUs are left
# idle while tests wait (MPI ranks backing off, Slurm daemons, tasks that
# sleep); three at a time ran the whole suite of a fresh build in 274 s and
# 282 s where two took 333 s (README).
jobs=${FERRY_TEST_JOBS:-$((${FERRY_JOBS:-2} + 1))}
# The tests get a temporary directory of their own (TMPDIR, which
# GoogleTest, mkdtemp, OpenMPI and Chromium follow): a test that leaves a
# file behind fails the run, named here, instead of filling the machine's.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ferry-tests-XXXXXX")
TMPDIR=$scratch ctest --test-dir "$build" --output-on-failure -j"$jobs" --output-junit "$build/test_times.xml" ||
  status=$?
if [ -n "$(ls -A "$scratch")" ]; then
  echo "FAIL: the tests left these in their temporary directory:"
  find "$scratch" -mindepth 1 -maxdepth 2 | sed "s|^$scratch/|  |"
  status=1
fi
rm -rf "$scratch"
python3 "$root/scripts/test_times.py" "$build/test_times.xml" $((built - started)) $(($(date +%s) - built)) || true
exit $status
