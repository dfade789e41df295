#!/usr/bin/env bash
# Configures and builds ferry into build/ (or $FERRY_BUILD_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FERRY_BUILD_DIR:-$root/build}
"$root/scripts/install_deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${FERRY_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
cmake --build "$build" -j"${FERRY_JOBS:-2}"
