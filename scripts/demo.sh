#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the
# local-function demo. ferry_sender links a shared library, makes a closure
# from a lambda defined inside a function of that library and writes
# ferry::dumps of it to a file; ferry_receiver, which never linked the
# library, allows the library's directory, loads the closure and prints what
# it returns: ok.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FERRY_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" >/dev/null
fixtures=$build/tests/fixtures
bytes=$(mktemp)
trap 'rm -f "$bytes"' EXIT
"$fixtures/ferry_sender" lambda "$bytes"
"$fixtures/ferry_receiver" "$bytes" --allow "$fixtures"
