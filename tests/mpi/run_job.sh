#!/usr/bin/env bash
# Runs one MPI job of a test, then fails if any process of it is left: the
# job's processes, their workers and anything those started all inherit
# FERRY_TEST_JOB, which nothing else on the machine has (mpirun's ranks on
# this machine, and the agents it spawns, inherit its environment).
#   run_job.sh MPIRUN ARGS...   (MPIRUN: FERRY_LOCAL_MPIRUN, a command of words)
set -u
job="mpi-$$-$RANDOM"
FERRY_TEST_JOB=$job "$@"
status=$?
# One grep over every environment (-z: its entries end in NUL), not a pipe
# per process: that cost about 0.7 s a job, a minute over the suite.
left() {
  grep -lzxsF "FERRY_TEST_JOB=$job" /proc/[0-9]*/environ | cut -d/ -f3
}
for _ in 1 2 3 4 5 6 7 8 9 10; do  # processes may take a moment to be reaped
  [ -z "$(left)" ] && exit $status
  sleep 0.5
done
echo "FAIL processes left after the job: $(left | xargs)"
exit 1
