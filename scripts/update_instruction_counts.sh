#!/usr/bin/env bash
# Rewrites tests/perf/instruction_counts.baseline from this tree, built with
# the default preset (whose build type the test instruction_counts_within_baseline
# checks against it). Say in the commit why a count grew.
#   scripts/update_instruction_counts.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install_deps.sh" valgrind
"$root/scripts/build.sh" default instruction_counts
python3 "$root/tests/perf/check_counts.py" --update --baseline "$root/tests/perf/instruction_counts.baseline" \
  "$("$root/scripts/build_dir.sh" default)/tests/instruction_counts"
