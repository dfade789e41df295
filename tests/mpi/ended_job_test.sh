#!/usr/bin/env bash
# An MPI job ended by a signal leaves nothing behind: SIGTERM (as a batch
# system or a user's kill sends) and SIGINT (Ctrl-C) to mpirun, and SIGKILL
# to the agent alone, each end every rank and worker, and the agent's
# directory of shipped modules, which held the task's module while the job
# ran, is gone with it (src/mpi/modules_dir_linux.h).
#   ended_job_test.sh MPIRUN PROGRAM   (PROGRAM: tests/slurm/slurm_job.cpp)
set -u
mpirun=$1 program=$2
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$program" "$work/ended_job"  # its path names this job's processes alone
tmp=${TMPDIR:-/tmp}
# Open MPI's session directory apart from other jobs' (own_session_dir.sh
# says why), here where mpirun itself must get the signals.
mkdir "$work/ompi"
export OMPI_MCA_orte_tmpdir_base=$work/ompi
# The job's processes: ranks and workers alike run this file.
job_pids() { for p in /proc/[0-9]*; do [ "$(readlink "$p/exe" 2>/dev/null)" = "$work/ended_job" ] && echo "${p#/proc/}"; done; }
module_dirs() { for p in $(job_pids); do ls -d "$tmp/ferry-modules-$p".* 2>/dev/null; done; }

for signal in TERM INT KILL; do
  echo "--- SIG$signal to $([ $signal = KILL ] && echo "the agent" || echo mpirun) while a task runs with shipped modules"
  # Shared memory between the ranks, not TCP: a rank of this job, killed
  # halfway, must not leave a TCP connection attempt that another job on
  # the machine, given the same port, would accept (and warn of).
  "$mpirun" --allow-run-as-root --oversubscribe --mca btl self,vader -n 3 \
    "$work/ended_job" cancelled >"$work/out" 2>&1 &
  launcher=$!
  for _ in $(seq 300); do grep -q '^running' "$work/out" && break; sleep 0.1; done
  grep -q '^running' "$work/out" || { kill -KILL $launcher; fail "the job did not start its task: $(cat "$work/out")"; }
  dirs=$(module_dirs)
  [ "$(echo "$dirs" | grep -c .)" = 1 ] || { kill -KILL $launcher; fail "expected one agent's modules directory, found: $dirs"; }
  ls "$dirs"/*.so >/dev/null 2>&1 || { kill -KILL $launcher; fail "no shipped module in $dirs"; }
  if [ $signal = KILL ]; then
    agent=${dirs##*/ferry-modules-}
    kill -KILL "${agent%%.*}"
  else
    kill -"$signal" $launcher
  fi
  gone=
  for _ in $(seq 150); do
    if ! kill -0 $launcher 2>/dev/null && [ -z "$(job_pids)" ]; then gone=1; break; fi
    sleep 0.1
  done
  wait $launcher 2>/dev/null
  [ -n "$gone" ] || fail "15 s after SIG$signal, left: $(job_pids | tr '\n' ' ')"
  [ ! -e "$dirs" ] || fail "SIG$signal left $dirs: $(ls "$dirs")"
  echo "PASS: no process and no $dirs left"
done
