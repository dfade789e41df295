#!/usr/bin/env bash
# Two throwaway clusters of scripts/slurm_cluster.sh up at once on this
# machine (root only; skipped with exit 77 where Slurm cannot start). Each
# node has a /dev/shm of its own, so OpenMPI's shared-memory files, named by
# host and job id, cannot collide: a file one cluster's job makes there is
# seen by neither the other cluster nor the machine, the two number their
# jobs apart, and MPI jobs of both, run at the same time, all succeed.
# Issue: with one /dev/shm, a plain MPI hello failed 5 of 16 runs in
# MPI_Init with two clusters up.
#   tests/slurm/two_clusters_test.sh SLURM_JOB_PROGRAM
set -u
program=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=8

# A job that outlives its time: what each of its processes (found by the
# cluster's own copy of the program) was waiting on, with their threads'
# stacks where gdb is installed; then the step is cancelled.
describe_hang() {  # EXE
  local p pid
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/exe" 2>/dev/null)" = "$1" ] || continue
    pid=${p#/proc/}
    echo "  pid $pid ($(tr '\0' ' ' <"$p/cmdline")) state $(awk '/^State/{print $2}' "$p/status")," \
      "threads waiting in: $(cat "$p"/task/*/wchan 2>/dev/null | tr '\0' ' ' | tr -s ' ')"
    command -v gdb >/dev/null &&
      timeout 20 gdb -p "$pid" -batch -ex 'thread apply all bt 8' 2>/dev/null | grep '^#' | sed 's/^/    /'
  done
}

# Runs one MPI job of two ranks, at most 60 s; prints its output when it
# fails, and what hung when it did not end.
run_job() {  # EXE OUT
  srun --mpi=pmix -n 2 "$1" workers >"$2" 2>&1 &
  local launcher=$! _
  for _ in $(seq 600); do kill -0 $launcher 2>/dev/null || break; sleep 0.1; done
  if kill -0 $launcher 2>/dev/null; then
    echo "still running after 60 s; srun: $(ps -o stat=,wchan=,args= -p $launcher)"
    describe_hang "$1"
    echo "  the end of its slurmd's log:"
    tail -5 "$slurm_tmp"/slurmd.*.log | sed 's/^/    /'
    kill -TERM $launcher
    for _ in $(seq 100); do kill -0 $launcher 2>/dev/null || break; sleep 0.1; done
    kill -KILL $launcher 2>/dev/null
    wait $launcher
    return 1
  fi
  wait $launcher && grep -q '^workers' "$2"
}

# One cluster's part, in a process of its own (a cluster's ports and job
# ids follow its shell's pid): up, then a probe file in its /dev/shm, then,
# once the other is up too, what its jobs see and the MPI jobs. Every step is
# bounded, so that the whole ends, with its output, within the test's time.
cluster() {  # NAME OTHER
  source "$root/scripts/slurm_cluster.sh"
  trap slurm_down EXIT
  slurm_up 4 >"$work/$1.up" || exit
  touch "$work/$1.ready"
  # The ranks of one node talk through shared memory and listen on no TCP
  # port that a rank of another job on the machine could reach.
  export OMPI_MCA_btl=self,vader
  local exe="$work/job-$1"  # its path names this cluster's processes alone
  cp "$program" "$exe"
  timeout -k 5 30 srun -n 1 touch "/dev/shm/ferry-probe-$1" || { echo "FAIL $1: srun of the probe failed"; exit 1; }
  for _ in $(seq 600); do [ -e "$work/$2.ready" ] && break; sleep 0.1; done
  [ -e "$work/$2.ready" ] || { echo "FAIL $1: the other cluster did not come up: $(cat "$work/$2.up")"; exit 1; }
  sleep 1  # the other's probe is written by now
  echo "seen $(timeout -k 5 30 srun -n 1 ls /dev/shm | grep ferry-probe | tr '\n' ' ')"
  local ok=0 i started=$SECONDS
  for i in $(seq $jobs); do
    # No new job after 120 s: the part ends in time to say what happened.
    if [ $((SECONDS - started)) -gt 120 ]; then echo "job $i not started: 120 s spent"; continue; fi
    if run_job "$exe" "$work/$1.job"; then
      ok=$((ok + 1))
    else
      echo "job $i failed: $(cat "$work/$1.job")"
    fi
  done
  echo "jobs $ok of $jobs"
  timeout -k 5 30 srun -n 1 sh -c 'echo "job id $SLURM_JOB_ID"'
}

cluster a b >"$work/a.out" 2>&1 &
first=$!
cluster b a >"$work/b.out" 2>&1 &
second=$!
wait $first; a_rc=$?
wait $second; b_rc=$?
cat "$work/a.out" "$work/b.out"
if [ $a_rc -eq 77 ] || [ $b_rc -eq 77 ]; then cat "$work"/*.up; exit 77; fi
failed=0
check() {  # NAME CONDITION...
  if "${@:2}"; then echo "PASS $1"; else echo "FAIL $1"; failed=1; fi
}
check "cluster a: its part ran to its end" [ $a_rc -eq 0 ]
check "cluster b: its part ran to its end" [ $b_rc -eq 0 ]
for c in a b; do
  o=$([ $c = a ] && echo b || echo a)
  check "cluster $c: its job sees its own probe in /dev/shm" grep -q "^seen.*ferry-probe-$c" "$work/$c.out"
  check "cluster $c: its job does not see the other's" bash -c "! grep -q '^seen.*ferry-probe-$o' '$work/$c.out'"
  check "cluster $c: $jobs of $jobs MPI jobs succeeded" grep -qx "jobs $jobs of $jobs" "$work/$c.out"
done
check "the machine's /dev/shm has neither probe" bash -c '! ls /dev/shm | grep -q ferry-probe'
a_id=$(sed -n 's/^job id //p' "$work/a.out")
b_id=$(sed -n 's/^job id //p' "$work/b.out")
apart() { [ -n "$a_id" ] && [ -n "$b_id" ] && [ "$a_id" != "$b_id" ]; }
check "the clusters number their jobs apart ($a_id, $b_id)" apart
exit $failed
