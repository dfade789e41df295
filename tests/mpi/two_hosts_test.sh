#!/usr/bin/env bash
# Two hosts simulated on one machine (scripts/simulated_hosts.sh): network
# namespaces joined by a veth pair, OpenMPI restricted to it, and a launcher
# agent entering the second one instead of ssh. There the test plugin's
# directory is hidden, so its module must be shipped.
#
#   two_hosts_test.sh PROGRAM PLUGIN MPIRUN
set -u
program=$1 plugin=$2 mpirun=$3
source "$(dirname "$0")/../../scripts/simulated_hosts.sh"
trap hosts_down EXIT
hosts_up "$(dirname "$plugin")" || exit

run() {  # [--slots-on-first-host N] ARGS...
  local first=1
  if [ "${1:-}" = --slots-on-first-host ]; then first=$2; shift 2; fi
  hosts_run "$first" 1 "$mpirun" "$program" "$@"
}
failures=0
check() {  # NAME TEXT OUTPUT
  if grep -qxF -- "$2" <<<"$3"; then echo "PASS $1"; else echo "FAIL $1: no line '$2' in:"; echo "$3"; failures=$((failures + 1)); fi
}

before=$(hosts_tx_bytes)
out=$(run --ship)
after=$(hosts_tx_bytes)
check "the agent runs on the second host" "agent on ferry-h2" "$out"
check "an 8 MiB argument reaches it" "length 8388608" "$out"
check "a module missing there is shipped and loaded" "plugin 2" "$out"
if [ $((after - before)) -gt 8388608 ]; then
  echo "PASS the task's bytes crossed the veth ($((after - before)) bytes sent)"
else
  echo "FAIL only $((after - before)) bytes crossed the veth"; failures=$((failures + 1))
fi

out=$(run)
check "without ship_modules the module is not found there" "plugin error ferry::module_not_found_error" "$out"

# The shipped module links a library that the second host lacks too.
out=$(run --ship-dependent)
check "the dependent plugin runs on the first host" "here 42" "$out"
check "shipped alone, a module missing its dependency fails to load" "dependent plugin error ferry::module_load_error" "$out"
check "the loader's message names the missing library" "the error names the missing library" "$out"

# An agent on each host, a plugin task for each: the module goes to both.
out=$(run --slots-on-first-host 2 --ship-to-both)
check "each agent ran one of the sleeping tasks" "sleeping tasks on 2 workers" "$out"
check "one module message serves every agent" "shipped module ran 2 of 2" "$out"

# An actor lives on the agent's host, and is made again there.
out=$(run --actor)
check "an actor's calls run on its host, in order" "actor on ferry-h2 counted 5" "$out"
check "its worker's death fails the call it ran" "its crash failed the call" "$out"
check "restarted on the same host from its arguments" "restarted on ferry-h2 at 1" "$out"

# An agent on each host; the second one falls silent (a task stops it).
# The job then ends with MPI_Abort, since MPI cannot finalize without it.
out=$(run --slots-on-first-host 2 --lose-agent)
check "a silent agent's tasks fail once agent_timeout passes" "tasks on the silent host failed" "$out"
check "no task is left hanging" "every task ended" "$out"
check "the pool goes on with the other host" "after: ran on the other host" "$out"

sleep 1
left=$(hosts_left)
[ -z "$left" ] || { echo "FAIL processes left in the namespaces: $left"; failures=$((failures + 1)); }
echo "$failures failed"
[ $failures -eq 0 ]
