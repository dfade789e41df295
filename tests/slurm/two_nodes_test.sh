#!/usr/bin/env bash
# ferry's MPI pool across two Slurm nodes on this machine
# (scripts/slurm_cluster.sh's slurm_up_nodes: a network namespace and a host
# name per node, a slurmd on each; root only, skipped with exit 77 where it
# cannot start). The test plugin's directory is hidden on the second node.
#   srun --ntasks-per-node=2 over both nodes gives each its agent, with the
#   CPUs Slurm gave the job there;
#   a task naming the plugin runs on the second node with ship_modules, and
#   fails there with module_not_found_error without it;
#   one module message serves an agent on each node;
#   scancel of a job on both nodes leaves no rank or worker on either, and
#   rank 0, if it outlives its agents, sees its task fail.
#   tests/slurm/two_nodes_test.sh SLURM_JOB_PROGRAM TWO_HOSTS_PROGRAM PLUGIN
set -u
job_program=$1 program=$2 plugin=$3
source "$(dirname "$0")/../../scripts/slurm_cluster.sh"
trap slurm_down EXIT
slurm_up_nodes 2 2 "$(dirname "$plugin")" || exit
# OpenMPI's TCP transport between the nodes, over their bridge.
export OMPI_MCA_btl_tcp_if_include=10.78.0.0/24
failures=0
check() {  # NAME TEXT OUTPUT
  if grep -qxF -- "$2" <<<"$3"; then echo "PASS $1"; else echo "FAIL $1: no line '$2' in:"; echo "$3"; failures=$((failures + 1)); fi
}
# Open MPI 4.1's TCP transport may hand a rank still inside MPI_Init a
# message from a rank of the other node that has finished it, before the
# receiver's point-to-point layer has registered its handler, and then
# calls that null handler: the receiver dies of SIGSEGV at address 0, its
# backtrace one frame deep, before ferry's code runs. Seen in 2 of about
# 190 runs of the first job below on a loaded 2-CPU machine; a core showed
# PMPI_Init_thread > opal_progress > mca_btl_tcp.so calling the empty
# handler of tag 65 (ob1's match). Such a job is run once more, saying so;
# a second such death, or any other failure, fails its checks.
died_in_mpi_start() {
  grep -q 'Failing at address: (nil)' <<<"$1" && ! grep -q '\[ 1\]' <<<"$1"
}
srun_job() {
  local out
  out=$(slurm_run timeout 120 srun --mpi=pmix "$@" 2>&1)
  if died_in_mpi_start "$out"; then
    echo "RETRY srun $*: a rank died at address 0 inside Open MPI's start (srun_job says why)" >&2
    out=$(slurm_run timeout 120 srun --mpi=pmix "$@" 2>&1)
  fi
  echo "$out"
}

out=$(srun_job -N 2 --ntasks-per-node=2 "$job_program" workers)
check "--ntasks-per-node=2 gives each node an agent, with the job's 2 CPUs there" "workers 4 hosts 2" "$out"

out=$(srun_job -N 2 --ntasks-per-node=1 "$program" --ship)
check "with one task per node, the second node's rank is the agent" "agent on ferry-c2" "$out"
check "an 8 MiB argument reaches it" "length 8388608" "$out"
check "a module missing there is shipped and loaded" "plugin 2" "$out"

out=$(srun_job -N 2 --ntasks-per-node=1 "$program")
check "without ship_modules the module is not found there" "plugin error ferry::module_not_found_error" "$out"

out=$(srun_job -N 2 -n 3 --ntasks-per-node=2 "$program" --ship-to-both)
check "each node's agent ran one of the sleeping tasks" "sleeping tasks on 2 workers" "$out"
check "one module message serves every agent" "shipped module ran 2 of 2" "$out"

# scancel of a job running on both nodes: every rank and worker gone, on
# each node, and rank 0 (which ignores SIGTERM) saw its task fail.
work=$(mktemp -d -p "$slurm_tmp")
chmod 755 "$work"
cp "$job_program" "$work/cancelled_job"  # its path names this job's processes alone
# The job's processes: ranks and workers alike run this file (a worker's
# command line is /proc/self/exe --ferry-worker).
job_pids() { for p in /proc/[0-9]*; do [ "$(readlink "$p/exe" 2>/dev/null)" = "$work/cancelled_job" ] && echo "${p#/proc/}"; done; }
# Submits the job and waits for it to say it runs. Run once more, as
# srun_job does, if a rank died inside Open MPI's start: the first job is
# cancelled and left to leave the queue, and its output, which may still
# say "running", is removed first.
submit_cancelled() {
  job=$(slurm_run sbatch --parsable --chdir="$work" -N 2 --ntasks-per-node=2 --output="$work/cancelled.out" \
    --wrap "srun --mpi=pmix $work/cancelled_job cancelled")
  for _ in $(seq 300); do grep -q '^running' "$work/cancelled.out" 2>/dev/null && return; sleep 0.1; done
}
submit_cancelled
if died_in_mpi_start "$(cat "$work/cancelled.out" 2>/dev/null)"; then
  echo "RETRY the cancelled job: a rank died at address 0 inside Open MPI's start (srun_job says why)" >&2
  slurm_run scancel "$job"
  for _ in $(seq 300); do [ -z "$(slurm_run squeue -h -j "$job" 2>/dev/null)" ] && break; sleep 0.1; done
  rm -f "$work/cancelled.out"
  submit_cancelled
fi
on_node() { for pid in $(job_pids); do ip netns identify "$pid"; done | grep -c "$(cluster_ns "$1")"; }
n1=$(on_node 1) n2=$(on_node 2)
if [ "$n1" -ge 3 ] && [ "$n2" -ge 3 ]; then
  echo "PASS the job runs on both nodes ($n1 and $n2 processes: two ranks and workers on each)"
else
  echo "FAIL expected two ranks and a worker on each node, found $n1 and $n2: $(cat "$work/cancelled.out")"
  failures=$((failures + 1))
fi
slurm_run scancel "$job"
gone=
for _ in $(seq 150); do
  if [ -z "$(job_pids)" ]; then gone=1; break; fi
  sleep 0.1
done
if [ -n "$gone" ]; then echo "PASS scancel leaves no rank or worker on either node"; else
  echo "FAIL 15 s after scancel, left: $(job_pids | tr '\n' ' ')"; failures=$((failures + 1)); fi
check "rank 0 outlived its agents and its task failed" "failed: worker_died_error" "$(grep -o '^failed: worker_died_error' "$work/cancelled.out")"

echo "$failures failed"
[ $failures -eq 0 ]
