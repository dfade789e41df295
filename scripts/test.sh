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
ctest --test-dir "$build" --output-on-failure -j"${FERRY_JOBS:-2}" --output-junit "$build/test_times.xml" || status=$?
python3 "$root/scripts/test_times.py" "$build/test_times.xml" $((built - started)) $(($(date +%s) - built)) || true
exit $status
