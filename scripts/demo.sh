#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the
# demo (examples/local_function): a closure made from a lambda defined inside
# a function of a shared library runs in a worker process of the reusable
# executor and prints ok. Pass fork or plugin to pick another start method.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FERRY_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" >/dev/null
exec "$build/examples/local_function" "$@"
