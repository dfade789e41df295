#!/usr/bin/env bash
# The serialization scenario by hand: ferry_sender links a shared library and
# writes a closure made inside it to a file; ferry_receiver, which never
# linked the library, allows its directory, loads the closure and prints ok.
# Usage: scripts/two_programs.sh [lambda|capture|aggregate|closure]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" default ferry_sender ferry_receiver >/dev/null
build=$("$root/scripts/build_dir.sh" default)
fixtures=$build/tests/fixtures
bytes=$(mktemp)
trap 'rm -f "$bytes"' EXIT
"$fixtures/ferry_sender" "${1:-lambda}" "$bytes"
"$fixtures/ferry_receiver" "$bytes" --allow "$fixtures"
