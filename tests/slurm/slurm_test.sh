#!/usr/bin/env bash
# ferry's MPI pool under a real Slurm (scripts/slurm_cluster.sh: one node,
# this machine, root only; skipped with exit 77 where Slurm cannot start):
#   srun --mpi=pmix -n 3 runs the MPI example and prints what mpirun gives;
#   sbatch of examples/mpi/slurm_job.sh writes that output where the docs say;
#   the agent's pool has the CPUs Slurm gave the job on the node, not the machine's;
#   scancel of a running job leaves no rank, no worker and no directory of
#   shipped modules, and rank 0, if it outlives its agents, sees its future
#   fail instead of hanging.
#   tests/slurm/slurm_test.sh EXAMPLE EXPECTED SLURM_JOB_PROGRAM
# EXAMPLE "-": the examples are not built (FERRY_BUILD_EXAMPLES=OFF, as in
# the release and clang presets); the two cases that run it are skipped.
set -u
example=$1 expected=$2 program=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/slurm_cluster.sh"
trap slurm_down EXIT
slurm_up 4 || exit
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d -p "$slurm_tmp")
# The ranks of this one node talk through shared memory, as OpenMPI has them
# do within a node anyway, and listen on no TCP port: a rank of another job
# on the machine (the test suite runs two at a time), killed halfway, once
# reached such a port and OpenMPI's warning of it landed in the output that
# is compared below.
export OMPI_MCA_btl=self,vader

if [ "$example" = - ]; then
  echo "--- srun and sbatch of the MPI example: skipped, the examples are not built"
else
  echo "--- srun --mpi=pmix -n 3 runs the example as mpirun does"
  timeout 120 srun --mpi=pmix -n 3 "$example" >"$work/srun.out" 2>"$work/srun.err" || {
    cat "$work/srun.err"; fail "srun exited $?"; }
  diff -u "$expected" "$work/srun.out" || fail "srun's output differs from the example's expected output"

  echo "--- sbatch of examples/mpi/slurm_job.sh writes ferry-mpi-JOBID.out in its directory"
  job=$(timeout 120 sbatch --parsable --wait --chdir="$work" "$root/examples/mpi/slurm_job.sh" "$example") ||
    fail "sbatch --wait failed: $(cat "$work"/ferry-mpi-*.out 2>/dev/null)"
  diff -u "$expected" "$work/ferry-mpi-$job.out" || fail "the batch job's output differs"
fi

echo "--- the agent's pool has the CPUs Slurm gave the job on its node"
# -n 2 -c 2: 4 CPUs for the job on this node, whatever the machine has.
out=$(timeout 120 srun --mpi=pmix -n 2 -c 2 "$program" workers 2>&1) || fail "srun exited: $out"
echo "$out"
[ "$(echo "$out" | grep '^workers')" = "workers 4 hosts 1" ] ||
  fail "expected 4 workers (SLURM_CPUS_ON_NODE) on 1 host, machine has $(nproc) CPUs: $out"
out=$(timeout 120 srun --mpi=pmix -n 2 "$program" workers 2>&1) || fail "srun exited: $out"
[ "$(echo "$out" | grep '^workers')" = "workers 2 hosts 1" ] || fail "expected 2 workers with -n 2: $out"

echo "--- scancel of a running job: every rank, worker and shipped module gone, rank 0's future failed"
cp "$program" "$work/cancelled_job"  # its path names this job's processes alone
job=$(sbatch --parsable --chdir="$work" --ntasks=3 --output="$work/cancelled.out" \
  --wrap "srun --mpi=pmix $work/cancelled_job cancelled") || fail "sbatch failed"
for _ in $(seq 300); do grep -q '^running' "$work/cancelled.out" 2>/dev/null && break; sleep 0.1; done
grep -q '^running' "$work/cancelled.out" || fail "the job did not start its task: $(cat "$work/cancelled.out")"
# The job's processes: ranks and workers alike run this file (a worker's
# command line is /proc/self/exe --ferry-worker).
job_pids() { for p in /proc/[0-9]*; do [ "$(readlink "$p/exe" 2>/dev/null)" = "$work/cancelled_job" ] && echo "${p#/proc/}"; done; }
running=$(job_pids | wc -l)
[ "$running" -ge 4 ] || fail "expected 3 ranks and at least one worker, found $running processes"
# The agent's directory of shipped modules (src/mpi/modules_dir_linux.h).
dirs=$(for p in $(job_pids); do ls -d "${TMPDIR:-/tmp}/ferry-modules-$p".* 2>/dev/null; done)
[ "$(echo "$dirs" | grep -c .)" = 1 ] || fail "expected one agent's modules directory, found: $dirs"
ls "$dirs"/*.so >/dev/null 2>&1 || fail "no shipped module in $dirs"
scancel "$job"
gone=
for _ in $(seq 150); do
  if [ -z "$(job_pids)" ]; then gone=1; break; fi
  sleep 0.1
done
[ -n "$gone" ] || fail "15 s after scancel, left: $(job_pids | tr '\n' ' ')"
[ ! -e "$dirs" ] || fail "scancel left $dirs: $(ls "$dirs")"
cat "$work/cancelled.out"
grep -q '^failed: worker_died_error' "$work/cancelled.out" ||
  fail "rank 0 outlived its agents without its future failing"
echo "PASS"
