#!/usr/bin/env bash
# Hosts simulated on one machine for scripts/bench_mpi_hosts.sh; sourced,
# root only. Like scripts/simulated_hosts.sh, but for N agent hosts: rank 0
# has a host of its own (10.78.0.100) and each agent host K one more
# (10.78.0.K, host name ferry-cK), every one a network namespace with a
# veth to a bridge in a namespace of its own; OpenMPI's launcher enters a
# host's namespace (with its own host name) instead of ssh. All share the
# machine's CPUs: what this measures is how rank 0's work grows with the
# number of agents, not a network.
#
#   source scripts/simulated_cluster.sh
#   cluster_up N || exit          # prints why and returns 77 where it cannot
#   cluster_run MPIRUN ARGS...    # rank 0 on its host, one agent rank on each
#                                 # of the N others; killed after 300 s
#   cluster_down                  # the caller runs it on exit (trap)
set -u
cluster_tag=$$
cluster_bridge=ferry_cb_$cluster_tag
cluster_hosts=0
cluster_tmp=

cluster_ns() { echo "ferry_c${1}_$cluster_tag"; }  # K: 0 for rank 0's host

# Kills what runs in each network namespace named and deletes it; quiet
# about those already gone, as a teardown may run again from an EXIT trap
# under set -e. scripts/simulated_hosts.sh uses it too.
netns_remove() {  # NS...
  local ns pids
  for ns in "$@"; do
    pids=$(ip netns pids "$ns" 2>/dev/null) || true
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    ip netns del "$ns" 2>/dev/null || true
  done
}

cluster_down() {
  local k
  for k in $(seq 0 "$cluster_hosts"); do netns_remove "$(cluster_ns "$k")"; done
  netns_remove "$cluster_bridge"
  [ -n "$cluster_tmp" ] && rm -rf "$cluster_tmp"
  cluster_tmp=
  cluster_hosts=0
}

cluster_up() {  # N
  local n=$1 k
  cant() { echo "SKIPPED: $1"; cluster_down; return 77; }
  [ "$(id -u)" -eq 0 ] || { cant "creating network namespaces needs root"; return; }
  cluster_tmp=$(mktemp -d)
  ip netns add "$cluster_bridge" 2>/dev/null || { cant "cannot create network namespaces here"; return; }
  ip -n "$cluster_bridge" link add br0 type bridge && ip -n "$cluster_bridge" link set br0 up || return 1
  cluster_hosts=$n
  {
    echo '#!/bin/sh'
    echo 'host=$1; shift'
    echo 'case "$host" in'
  } >"$cluster_tmp/agent"
  for k in $(seq 0 "$n"); do
    local ns addr
    ns=$(cluster_ns "$k")
    addr=10.78.0.$([ "$k" -eq 0 ] && echo 100 || echo "$k")
    ip netns add "$ns" || return 1
    ip link add "fc${cluster_tag}h$k" type veth peer name "fc${cluster_tag}b$k" ||
      { cant "cannot create a veth pair here"; return; }
    ip link set "fc${cluster_tag}h$k" netns "$ns" && ip link set "fc${cluster_tag}b$k" netns "$cluster_bridge" || return 1
    ip -n "$cluster_bridge" link set "fc${cluster_tag}b$k" master br0 &&
      ip -n "$cluster_bridge" link set "fc${cluster_tag}b$k" up || return 1
    ip -n "$ns" addr add "$addr/24" dev "fc${cluster_tag}h$k" &&
      ip -n "$ns" link set "fc${cluster_tag}h$k" up && ip -n "$ns" link set lo up || return 1
    echo "  $addr) exec ip netns exec $ns unshare --uts sh -c \"hostname ferry-c$k && \$*\" ;;" >>"$cluster_tmp/agent"
  done
  echo 'esac' >>"$cluster_tmp/agent"
  echo 'echo "no such simulated host: $host" >&2; exit 1' >>"$cluster_tmp/agent"
  chmod +x "$cluster_tmp/agent"
  ip netns exec "$(cluster_ns 0)" unshare --uts true 2>/dev/null || { cant "cannot create UTS namespaces here"; return; }
}

cluster_run() {  # MPIRUN ARGS...
  local mpirun=$1 hosts="10.78.0.100:1" k
  shift
  for k in $(seq 1 "$cluster_hosts"); do hosts="$hosts,10.78.0.$k:1"; done
  # An Open MPI session directory apart from other jobs' on this machine
  # (tests/mpi/own_session_dir.sh says why).
  mkdir -p "$cluster_tmp/ompi"
  OMPI_MCA_orte_tmpdir_base=$cluster_tmp/ompi \
    timeout 300 ip netns exec "$(cluster_ns 0)" "$mpirun" --allow-run-as-root --oversubscribe --host "$hosts" \
    -n $((cluster_hosts + 1)) --mca plm_rsh_agent "$cluster_tmp/agent" \
    --mca oob_tcp_if_include 10.78.0.0/24 --mca btl self,tcp --mca btl_tcp_if_include 10.78.0.0/24 "$@" 2>&1
}
