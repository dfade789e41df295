#!/usr/bin/env bash
# A throwaway Slurm cluster on this machine, for tests/slurm/ and anyone who
# wants to try ferry's MPI pool under srun and sbatch; sourced, root only.
# Everything lives in a temporary directory: a fresh munge key and its
# munged, a generated slurm.conf (ports of its own, no accounting, processes
# tracked by parentage, nothing bound), slurmctld and one slurmd per node;
# SLURM_CONF points srun, sbatch, sinfo and scancel at it, and
# OMPI_MCA_orte_tmpdir_base gives its jobs Open MPI session directories of
# their own (tests/mpi/own_session_dir.sh says why). slurm_down
# cancels what runs, stops the daemons and removes the directory.
#
# Several such clusters may be up at once on one machine (two checkouts, the
# tests beside a benchmark): each slurmd, and so every job step it starts,
# has a /dev/shm of its own (a tmpfs in a mount namespace of its own), where
# OpenMPI names its shared-memory files by host name and job id, which two
# clusters share; and each cluster numbers its jobs from an id of its own.
#
# One node: this machine itself. N nodes: the hosts of
# scripts/simulated_cluster.sh, a network namespace each with a host name of
# its own (ferry-cK at 10.78.0.K), the controller and the submitting side on
# ferry-c0 (10.78.0.100); slurm_run runs a command there.
#
#   source scripts/slurm_cluster.sh
#   slurm_up [CPUS] || exit      # one node declared with CPUS CPUs (default 4, whatever
#                                # the machine has); prints why and returns 77 where it cannot
#   slurm_up_nodes N CPUS [HIDDEN_DIR] || exit   # N nodes; HIDDEN_DIR hidden on the last
#   slurm_run COMMAND...         # on the submitting host
#   slurm_down                   # the caller runs it on exit (trap)
set -u
source "$(dirname "${BASH_SOURCE[0]}")/simulated_cluster.sh"
slurm_tmp=
slurm_nodes=0  # 0: this machine is the one node

slurm_down() {
  [ -n "$slurm_tmp" ] || return 0
  # Bounded: with no controller left, scancel would wait for one.
  slurm_run timeout -k 1 10 scancel --full --quiet --user=root 2>/dev/null
  local f pid
  for f in "$slurm_tmp"/slurmd*.pid "$slurm_tmp"/slurmctld.pid "$slurm_tmp"/munged.pid; do
    pid=$(cat "$f" 2>/dev/null) || continue
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  if [ "$slurm_nodes" -gt 0 ]; then cluster_down; fi
  rm -rf "$slurm_tmp"
  slurm_tmp=
  slurm_nodes=0
  unset SLURM_CONF OMPI_MCA_orte_tmpdir_base
}

slurm_run() {  # COMMAND...
  if [ "$slurm_nodes" -eq 0 ]; then
    "$@"
  else
    ip netns exec "$(cluster_ns 0)" unshare --uts sh -c 'hostname ferry-c0 && exec "$@"' slurm_run "$@"
  fi
}

# Checks the tools, makes the directory and starts munged.
slurm_begin() {
  cant() { echo "SKIPPED: $1"; slurm_down; return 77; }
  [ "$(id -u)" -eq 0 ] || { cant "starting slurmd and munged for a test needs root"; return; }
  for tool in munged slurmctld slurmd srun sbatch; do
    command -v "$tool" >/dev/null || { cant "$tool is not installed (scripts/install_deps.sh installs it)"; return; }
  done
  slurm_tmp=$(mktemp -d)
  chmod 711 "$slurm_tmp"  # munge's socket must be reachable through it
  mkdir -p "$slurm_tmp/state" "$slurm_tmp/spool" "$slurm_tmp/ompi"
  # The cluster's jobs keep Open MPI's session directories apart from other
  # jobs' on this machine (tests/mpi/own_session_dir.sh says why); srun
  # passes its environment on to the tasks.
  export OMPI_MCA_orte_tmpdir_base=$slurm_tmp/ompi
  head -c 1024 /dev/urandom >"$slurm_tmp/munge.key"
  chmod 400 "$slurm_tmp/munge.key"
  munged --force --socket="$slurm_tmp/munge.socket" --key-file="$slurm_tmp/munge.key" \
    --log-file="$slurm_tmp/munged.log" --pid-file="$slurm_tmp/munged.pid" --seed-file="$slurm_tmp/munged.seed" ||
    { cant "munged did not start: $(tail -1 "$slurm_tmp/munged.log")"; return; }
}

# slurm.conf for a controller CTLD_HOST at CTLD_ADDR and the NodeName lines
# that follow.
slurm_conf() {  # CTLD_HOST CTLD_ADDR NODE_LINE...
  # Two ports no socket of the machine uses (the first pair free from this
  # shell's own slot), and job ids apart from another cluster's, in steps of
  # 1000 jobs by the same slot (Slurm's largest id is 67 043 328). The ports
  # stay in 20000-31999, below the kernel's range for outgoing connections
  # (32768 on): a port there can be taken by any connection between the
  # check and slurmctld's bind, which then fails ("Address already in use")
  # and leaves a cluster with no controller. The check sees every socket,
  # connected ones too, not only those listening.
  local t=$slurm_tmp slot=$((BASHPID % 6000)) port
  for _ in $(seq 100); do
    port=$((20000 + slot * 2))
    [ -z "$(ss -Htan "( sport = :$port or sport = :$((port + 1)) )" 2>/dev/null)" ] && break
    slot=$(( (slot + 1) % 6000 ))
  done
  local first_job=$((slot * 1000 + 1))
  cat >"$t/slurm.conf" <<EOC
ClusterName=ferry
SlurmctldHost=$1($2)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$t/munge.socket
CredType=cred/munge
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool/%n
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.%n.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmctldLogFile=$t/slurmctld.log
SlurmdLogFile=$t/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
KillWait=5
FirstJobId=$first_job
SlurmdParameters=config_overrides
EOC
  shift 2
  printf '%s\n' "$@" >>"$t/slurm.conf"
  # The PMIx plugin's directory per job step is named by the step alone:
  # inside the cluster's directory, and each node's own (slurm_up_nodes).
  mkdir -p "$t/pmix"
  echo "PMIxCliTmpDirBase=$t/pmix" >"$t/mpi.conf"
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$t/slurm.conf"
  export SLURM_CONF=$t/slurm.conf
}

# Waits for `want` nodes to be idle, 20 s by the clock: each sinfo is
# bounded too, since one asking a controller that died waits far longer than
# a step of this loop.
slurm_wait_idle() {  # WANT
  local until=$((SECONDS + 20))
  while [ $SECONDS -lt $until ]; do
    [ "$(slurm_run timeout -k 1 3 sinfo -h -N -o %T 2>/dev/null | grep -c '^idle$')" -eq "$1" ] && return 0
    sleep 0.2
  done
  cant "the nodes did not come up within 20 s: $(tail -2 "$slurm_tmp"/slurmd*.log 2>/dev/null)"
}

slurm_up() {  # [CPUS]
  local cpus=${1:-4} host
  slurm_begin || return
  host=$(hostname)
  mkdir -p "$slurm_tmp/spool/$host"
  slurm_conf "$host" 127.0.0.1 "NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN"
  slurmctld -i || { cant "slurmctld did not start: $(tail -1 "$slurm_tmp/slurmctld.log" 2>/dev/null)"; return; }
  # A mount namespace of its own, for its own /dev/shm: nothing else of the
  # machine changes for it.
  unshare --mount --propagation private sh -c "mount -t tmpfs -o mode=1777 tmpfs /dev/shm && exec slurmd" ||
    { cant "slurmd did not start: $(tail -1 "$slurm_tmp"/slurmd.*.log 2>/dev/null)"; return; }
  slurm_wait_idle 1
}

slurm_up_nodes() {  # N CPUS [HIDDEN_DIR]
  local n=$1 cpus=$2 hidden=${3:-} k lines=()
  slurm_begin || return
  cluster_up "$n" || { local rc=$?; slurm_down; return $rc; }
  slurm_nodes=$n
  for k in $(seq 1 "$n"); do lines+=("NodeName=ferry-c$k NodeAddr=10.78.0.$k CPUs=$cpus State=UNKNOWN"); done
  slurm_conf ferry-c0 10.78.0.100 "${lines[@]}"
  slurm_run slurmctld -i || { cant "slurmctld did not start: $(tail -1 "$slurm_tmp/slurmctld.log" 2>/dev/null)"; return; }
  for k in $(seq 1 "$n"); do
    local hide=true
    [ -n "$hidden" ] && [ "$k" -eq "$n" ] && hide="mount -t tmpfs tmpfs '$hidden'"
    mkdir -p "$slurm_tmp/spool/ferry-c$k"
    # Not ip netns exec, which mounts a sysfs of the namespace's own without
    # the cgroup file systems slurmd reads at start: only the network is
    # the node's.
    mkdir -p "$slurm_tmp/pmix-ferry-c$k"
    nsenter --net="/run/netns/$(cluster_ns "$k")" unshare --uts --mount sh -c \
      "mount --bind '$slurm_tmp/pmix-ferry-c$k' '$slurm_tmp/pmix' && mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
       $hide && hostname ferry-c$k && exec slurmd" ||
      { cant "slurmd of ferry-c$k did not start: $(tail -1 "$slurm_tmp"/slurmd.ferry-c$k.log 2>/dev/null)"; return; }
  done
  slurm_wait_idle "$n"
}
