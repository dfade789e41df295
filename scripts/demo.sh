#!/usr/bin/env bash
# The README's first command: installs what is missing, builds what the demo
# needs and nothing else (the demo and the plugin worker, with the
# libraries under them), and runs the demo (examples/local_function): a
# closure made from a lambda defined inside a function of a shared library
# runs in a worker process of the reusable executor and prints ok. Pass fork
# or plugin to pick another start method.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" default local_function ferry-worker >/dev/null
exec "$("$root/scripts/build_dir.sh" default)/examples/local_function" "$@"
