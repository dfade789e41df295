#!/usr/bin/env bash
# Builds and runs the test suite under AddressSanitizer + UndefinedBehavior-
# Sanitizer, and the executor's tests (and the concurrency-sensitive unit
# tests) under ThreadSanitizer, with the presets of CMakePresets.json.
#   scripts/test_sanitizers.sh [asan|tsan]...   (default: both)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install_deps.sh"
for preset in "${@:-asan tsan}"; do
  for p in $preset; do
    cmake --preset "$p" >/dev/null
    cmake --build --preset "$p"
    case "$p" in
      # The package test rebuilds ferry twice more; it adds nothing under a sanitizer.
      asan) ctest --preset asan -E 'package_consumer' ;;
      tsan) ctest --preset tsan -R '^(spawn|fork|plugin)\.|FrameIo|Function\.|parent_death' --timeout 120 ;;
    esac
  done
done
