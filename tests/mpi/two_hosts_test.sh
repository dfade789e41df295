#!/usr/bin/env bash
# Two hosts simulated on one machine: two network namespaces joined by a
# veth pair, with addresses this test assigns inside them; OpenMPI's TCP
# transport restricted to that subnet, and a launcher agent that enters the
# second namespace (with its own mount and host name) instead of ssh. In it
# the test plugin's directory is hidden, so its module must be shipped.
#
#   two_hosts_test.sh PROGRAM PLUGIN MPIRUN
set -u
program=$1 plugin=$2 mpirun=$3
skip() { echo "SKIPPED: $1"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "creating network namespaces needs root"

tag=$$
h1=ferry_h1_$tag h2=ferry_h2_$tag v1=fy${tag}a v2=fy${tag}b
tmp=$(mktemp -d)
cleanup() {
  for ns in "$h1" "$h2"; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$h1" 2>/dev/null || skip "cannot create network namespaces here"
ip netns add "$h2" || exit 1
ip link add "$v1" type veth peer name "$v2" || skip "cannot create a veth pair here"
ip link set "$v1" netns "$h1" && ip link set "$v2" netns "$h2" || exit 1
ip -n "$h1" addr add 10.77.0.1/24 dev "$v1" && ip -n "$h2" addr add 10.77.0.2/24 dev "$v2" || exit 1
for ns in "$h1" "$h2"; do ip -n "$ns" link set lo up; done
ip -n "$h1" link set "$v1" up && ip -n "$h2" link set "$v2" up || exit 1
ip netns exec "$h2" unshare --mount --uts true 2>/dev/null || skip "cannot create mount and UTS namespaces here"

# The launcher agent: OpenMPI calls it as `agent HOST COMMAND...`, as it
# would call ssh.
hidden=$(dirname "$plugin")
cat >"$tmp/agent" <<EOA
#!/bin/sh
shift
exec ip netns exec $h2 unshare --mount --uts sh -c "mount -t tmpfs tmpfs '$hidden' && hostname ferry-h2 && \$*"
EOA
chmod +x "$tmp/agent"

tx_bytes() { ip netns exec "$h1" cat "/sys/class/net/$v1/statistics/tx_bytes"; }
run() {  # [--slots-on-first-host N] ARGS...
  local first=1
  if [ "${1:-}" = --slots-on-first-host ]; then first=$2; shift 2; fi
  timeout 120 ip netns exec "$h1" "$mpirun" --allow-run-as-root --oversubscribe \
    --host 10.77.0.1:$first,10.77.0.2:1 -n $((first + 1)) --mca plm_rsh_agent "$tmp/agent" \
    --mca oob_tcp_if_include 10.77.0.0/24 --mca btl self,tcp --mca btl_tcp_if_include 10.77.0.0/24 \
    "$program" "$@" 2>&1
}
failures=0
check() {  # NAME TEXT OUTPUT
  if grep -qxF -- "$2" <<<"$3"; then echo "PASS $1"; else echo "FAIL $1: no line '$2' in:"; echo "$3"; failures=$((failures + 1)); fi
}

before=$(tx_bytes)
out=$(run --ship)
after=$(tx_bytes)
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

# An agent on each host; the second one falls silent (a task stops it).
# The job then ends with MPI_Abort, since MPI cannot finalize without it.
out=$(run --slots-on-first-host 2 --lose-agent)
check "a silent agent's tasks fail once agent_timeout passes" "tasks on the silent host failed" "$out"
check "no task is left hanging" "every task ended" "$out"
check "the pool goes on with the other host" "after: ran on the other host" "$out"

sleep 1
for ns in "$h1" "$h2"; do
  [ -z "$(ip netns pids "$ns")" ] || { echo "FAIL processes left in $ns: $(ip netns pids "$ns" | xargs)"; failures=$((failures + 1)); }
done
echo "$failures failed"
[ $failures -eq 0 ]
