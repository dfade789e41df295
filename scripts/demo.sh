#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the
# local-function demo (a closure made inside a shared library, shipped as
# bytes to a program that never linked that library). Prints `ok`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FERRY_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" >/dev/null
exec "$root/examples/local_function/run_demo.sh" "$build"
