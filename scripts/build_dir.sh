#!/usr/bin/env bash
# Prints where scripts/build.sh builds a preset: $FERRY_BUILD_DIR, else the
# preset's binaryDir in CMakePresets.json (build/ for default, build-PRESET/).
#   scripts/build_dir.sh PRESET
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${FERRY_BUILD_DIR:-}" ]; then echo "$FERRY_BUILD_DIR"
elif [ "$1" = default ]; then echo "$root/build"
else echo "$root/build-$1"; fi
