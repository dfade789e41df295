#!/usr/bin/env bash
# A throwaway Slurm cluster of one node, this machine, for tests/slurm/ and
# anyone who wants to try ferry's MPI pool under srun and sbatch; sourced,
# root only. Everything lives in a temporary directory: a fresh munge key
# and its munged, a generated slurm.conf (ports of its own, no accounting,
# processes tracked by parentage), slurmctld and slurmd started from it;
# SLURM_CONF points srun, sbatch, squeue and scancel at it. slurm_down
# cancels what runs, stops the daemons and removes the directory.
#
#   source scripts/slurm_cluster.sh
#   slurm_up [CPUS] || exit   # the node declared with CPUS CPUs (default 4, whatever
#                             # the machine has); prints why and returns 77 where it cannot
#   slurm_down                # the caller runs it on exit (trap)
set -u
slurm_tmp=

slurm_down() {
  [ -n "$slurm_tmp" ] || return 0
  scancel --full --quiet --user=root 2>/dev/null
  local f pid
  for f in "$slurm_tmp"/slurmd.pid "$slurm_tmp"/slurmctld.pid "$slurm_tmp"/munged.pid; do
    pid=$(cat "$f" 2>/dev/null) || continue
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$slurm_tmp"
  slurm_tmp=
  unset SLURM_CONF
}

slurm_up() {  # [CPUS]
  local cpus=${1:-4}
  cant() { echo "SKIPPED: $1"; slurm_down; return 77; }
  [ "$(id -u)" -eq 0 ] || { cant "starting slurmd and munged for a test needs root"; return; }
  for tool in munged slurmctld slurmd srun sbatch; do
    command -v "$tool" >/dev/null || { cant "$tool is not installed (scripts/install_deps.sh installs it)"; return; }
  done
  slurm_tmp=$(mktemp -d)
  chmod 711 "$slurm_tmp"  # munge's socket must be reachable through it
  local t=$slurm_tmp host port
  host=$(hostname)
  port=$((20000 + ($$ % 10000) * 2))
  mkdir -p "$t/state" "$t/spool"
  head -c 1024 /dev/urandom >"$t/munge.key"
  chmod 400 "$t/munge.key"
  munged --force --socket="$t/munge.socket" --key-file="$t/munge.key" --log-file="$t/munged.log" \
    --pid-file="$t/munged.pid" --seed-file="$t/munged.seed" || { cant "munged did not start: $(tail -1 "$t/munged.log")"; return; }
  cat >"$t/slurm.conf" <<EOC
ClusterName=ferry
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$t/munge.socket
CredType=cred/munge
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmctldLogFile=$t/slurmctld.log
SlurmdLogFile=$t/slurmd.log
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
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOC
  export SLURM_CONF=$t/slurm.conf
  slurmctld -i || { cant "slurmctld did not start: $(tail -1 "$t/slurmctld.log" 2>/dev/null)"; return; }
  slurmd || { cant "slurmd did not start: $(tail -1 "$t/slurmd.log" 2>/dev/null)"; return; }
  for _ in $(seq 100); do
    [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && return 0
    sleep 0.2
  done
  cant "the node did not come up within 20 s: $(tail -1 "$t/slurmd.log" 2>/dev/null)"
}
