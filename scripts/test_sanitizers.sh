#!/usr/bin/env bash
# Builds and runs, with the presets of CMakePresets.json: the test suite under
# AddressSanitizer + UndefinedBehaviorSanitizer (asan) and under
# ThreadSanitizer (tsan), fewer start methods (tests/ferry_add_test.cmake); the
# libFuzzer targets, each for FERRY_FUZZ_SECONDS (default 60) on its seed
# corpus, two at a time, and every past finding (fuzz; clang, whose build
# also checks the thread-safety annotations, warnings as errors).
#   scripts/test_sanitizers.sh [asan|tsan|fuzz]...   (default: all three)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install_deps.sh"
for preset in "${@:-asan tsan fuzz}"; do
  for p in $preset; do
    args=()
    [ "$p" = fuzz ] && args=(-DFERRY_FUZZ_SECONDS="${FERRY_FUZZ_SECONDS:-60}")
    cmake --preset "$p" "${args[@]}" >/dev/null
    cmake --build --preset "$p"
    case "$p" in
      # No fork-method tests under a sanitizer, and most suites under one
      # start method: tests/ferry_add_test.cmake says why.
      asan) ctest --preset asan ;;
      tsan) ctest --preset tsan --timeout 300 ;;
      fuzz) ctest --preset fuzz -j2 ;;
    esac
  done
done
