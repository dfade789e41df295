#!/usr/bin/env bash
# Builds and runs, with the presets of CMakePresets.json: the test suite under
# AddressSanitizer + UndefinedBehaviorSanitizer (asan) and under
# ThreadSanitizer (tsan), but for the tests named below; the
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
      # The fork-method executor tests are left to the plain run: this
      # toolchain's ASan and TSan allocators take no lock around fork(), so a
      # worker forked while another thread allocates can hang in the
      # sanitizer's malloc (seen under both, with the test's main thread
      # submitting).
      asan) ctest --preset asan -E '^fork\.' ;;
      tsan) ctest --preset tsan -E '^fork\.' --timeout 300 ;;
      fuzz) ctest --preset fuzz -j2 ;;
    esac
  done
done
