#!/usr/bin/env bash
# Builds and runs, with the presets of CMakePresets.json: the test suite under
# AddressSanitizer + UndefinedBehaviorSanitizer (asan, but for the tests
# named below); the whole test suite under ThreadSanitizer (tsan); the
# libFuzzer targets, each for FERRY_FUZZ_SECONDS (60) on its seed corpus,
# and every past finding (fuzz; clang).
#   scripts/test_sanitizers.sh [asan|tsan|fuzz]...   (default: all three)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install_deps.sh"
for preset in "${@:-asan tsan fuzz}"; do
  for p in $preset; do
    cmake --preset "$p" >/dev/null
    cmake --build --preset "$p"
    case "$p" in
      # The package test rebuilds ferry twice more (minutes); it passes under
      # ASan but is left to the TSan run, for CI's time. The fork-method tests
      # are left to the plain and TSan runs: this toolchain's ASan allocator
      # takes no lock around fork(), so a worker forked while another thread
      # allocates can hang in malloc (seen in CI with two threads, not only
      # with many).
      asan) ctest --preset asan -E '^package_consumer$|^fork\.' ;;
      tsan) ctest --preset tsan --timeout 300 ;;
      fuzz) ctest --preset fuzz ;;
    esac
  done
done
