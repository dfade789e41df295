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

# One cluster's part, in a process of its own (a cluster's ports and job
# ids follow its shell's pid): up, then a probe file in its /dev/shm, then,
# once the other is up too, what its jobs see and the MPI jobs.
cluster() {  # NAME OTHER
  source "$root/scripts/slurm_cluster.sh"
  trap slurm_down EXIT
  slurm_up 4 >"$work/$1.up" || exit
  touch "$work/$1.ready"
  srun -n 1 touch "/dev/shm/ferry-probe-$1" || { echo "FAIL $1: srun of the probe failed"; exit 1; }
  for _ in $(seq 600); do [ -e "$work/$2.ready" ] && break; sleep 0.1; done
  [ -e "$work/$2.ready" ] || { echo "FAIL $1: the other cluster did not come up: $(cat "$work/$2.up")"; exit 1; }
  sleep 1  # the other's probe is written by now
  echo "seen $(srun -n 1 ls /dev/shm | grep ferry-probe | tr '\n' ' ')"
  local ok=0 i
  for i in $(seq $jobs); do
    if out=$(timeout 120 srun --mpi=pmix -n 2 "$program" workers 2>&1) && grep -q '^workers' <<<"$out"; then
      ok=$((ok + 1))
    else
      echo "job $i failed: $out"
    fi
  done
  echo "jobs $ok of $jobs"
  srun -n 1 sh -c 'echo "job id $SLURM_JOB_ID"'
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
