#!/usr/bin/env bash
# Two hosts simulated on one machine, for tests/mpi/two_hosts_test.sh and
# scripts/bench_mpi.sh; sourced, root only. Two network namespaces joined by
# a veth pair, with addresses assigned inside them (10.77.0.1 and
# 10.77.0.2, nothing else is ever a target); OpenMPI's TCP transport and
# out-of-band channel restricted to that subnet; and a launcher agent that
# enters the second namespace, with its own mount and host name
# (ferry-h2), instead of ssh. A directory may be hidden there (an empty
# tmpfs over it), so that its files exist on the first host only.
#
#   source scripts/simulated_hosts.sh
#   hosts_up [HIDDEN_DIR] || exit    # prints why and returns 77 where it cannot
#   hosts_run SLOTS1 SLOTS2 MPIRUN ARGS...   # one job over both, SLOTS1+SLOTS2 ranks,
#                                    # killed after HOSTS_TIMEOUT seconds (120)
#   hosts_tx_bytes                   # bytes the first host sent over the veth
#   hosts_left                       # pids still in either namespace
#   hosts_down                       # the caller runs it on exit (trap)
set -u
source "$(dirname "${BASH_SOURCE[0]}")/simulated_cluster.sh"  # netns_remove
hosts_tag=$$
hosts_h1=ferry_h1_$hosts_tag hosts_h2=ferry_h2_$hosts_tag
hosts_v1=fy${hosts_tag}a hosts_v2=fy${hosts_tag}b
hosts_tmp=

hosts_down() {
  netns_remove "$hosts_h1" "$hosts_h2"
  [ -n "$hosts_tmp" ] && rm -rf "$hosts_tmp"
  hosts_tmp=
}

hosts_up() {  # [HIDDEN_DIR]
  local hidden=${1:-}
  cant() { echo "SKIPPED: $1"; hosts_down; return 77; }
  [ "$(id -u)" -eq 0 ] || { cant "creating network namespaces needs root"; return; }
  hosts_tmp=$(mktemp -d)
  ip netns add "$hosts_h1" 2>/dev/null || { cant "cannot create network namespaces here"; return; }
  ip netns add "$hosts_h2" || return 1
  ip link add "$hosts_v1" type veth peer name "$hosts_v2" || { cant "cannot create a veth pair here"; return; }
  ip link set "$hosts_v1" netns "$hosts_h1" && ip link set "$hosts_v2" netns "$hosts_h2" || return 1
  ip -n "$hosts_h1" addr add 10.77.0.1/24 dev "$hosts_v1" || return 1
  ip -n "$hosts_h2" addr add 10.77.0.2/24 dev "$hosts_v2" || return 1
  for ns in "$hosts_h1" "$hosts_h2"; do ip -n "$ns" link set lo up; done
  ip -n "$hosts_h1" link set "$hosts_v1" up && ip -n "$hosts_h2" link set "$hosts_v2" up || return 1
  ip netns exec "$hosts_h2" unshare --mount --uts true 2>/dev/null ||
    { cant "cannot create mount and UTS namespaces here"; return; }
  # OpenMPI calls the agent as `agent HOST COMMAND...`, as it would call ssh.
  local hide=true
  [ -n "$hidden" ] && hide="mount -t tmpfs tmpfs '$hidden'"
  cat >"$hosts_tmp/agent" <<EOA
#!/bin/sh
shift
exec ip netns exec $hosts_h2 unshare --mount --uts sh -c "$hide && hostname ferry-h2 && \$*"
EOA
  chmod +x "$hosts_tmp/agent"
}

hosts_run() {  # SLOTS1 SLOTS2 MPIRUN ARGS...
  local first=$1 second=$2 mpirun=$3
  shift 3
  # An Open MPI session directory apart from other jobs' on this machine
  # (tests/mpi/own_session_dir.sh says why).
  mkdir -p "$hosts_tmp/ompi"
  OMPI_MCA_orte_tmpdir_base=$hosts_tmp/ompi \
    timeout "${HOSTS_TIMEOUT:-120}" ip netns exec "$hosts_h1" "$mpirun" --allow-run-as-root --oversubscribe \
    --host "10.77.0.1:$first,10.77.0.2:$second" -n $((first + second)) --mca plm_rsh_agent "$hosts_tmp/agent" \
    --mca oob_tcp_if_include 10.77.0.0/24 --mca btl self,tcp --mca btl_tcp_if_include 10.77.0.0/24 "$@" 2>&1
}

hosts_tx_bytes() { ip netns exec "$hosts_h1" cat "/sys/class/net/$hosts_v1/statistics/tx_bytes"; }

hosts_left() {
  for ns in "$hosts_h1" "$hosts_h2"; do ip netns pids "$ns" 2>/dev/null; done | xargs
}
