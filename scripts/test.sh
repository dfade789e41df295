#!/usr/bin/env bash
# The README's second command: installs what is missing, builds everything
# (the default preset), and runs the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Chromium, headless, opens the timeline's page (tests/executor/timeline_test.py).
"$root/scripts/install_deps.sh" chromium
"$root/scripts/build.sh" default
ctest --test-dir "$("$root/scripts/build_dir.sh" default)" --output-on-failure -j"${FERRY_JOBS:-2}"
