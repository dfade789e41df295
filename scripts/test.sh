#!/usr/bin/env bash
# The README's second command: installs what is missing, builds, and runs
# the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FERRY_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j"${FERRY_JOBS:-2}"
