#!/usr/bin/env bash
# Configures ferry with a preset of CMakePresets.json (default: default) and
# builds it, or only the targets named after the preset, into the preset's
# directory (build/ for default, build-PRESET/ for the others) or
# $FERRY_BUILD_DIR. CI sets FERRY_WARNINGS_AS_ERRORS=ON.
#   scripts/build.sh [PRESET [TARGET...]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
preset=${1:-default}
"$root/scripts/install_deps.sh"
build=$("$root/scripts/build_dir.sh" "$preset")
args=(--preset "$preset" -B "$build")
[ -n "${FERRY_WARNINGS_AS_ERRORS:-}" ] && args+=(-DFERRY_WARNINGS_AS_ERRORS="$FERRY_WARNINGS_AS_ERRORS")
cd "$root"
cmake "${args[@]}" >/dev/null
targets=()
for t in "${@:2}"; do targets+=(--target "$t"); done
cmake --build "$build" -j"${FERRY_JOBS:-2}" "${targets[@]}"
