#!/usr/bin/env bash
# ferry's MPI pool across two Slurm nodes on this machine
# (scripts/slurm_cluster.sh's slurm_up_nodes: a network namespace and a host
# name per node, a slurmd on each; root only, skipped with exit 77 where it
# cannot start). The test plugin's directory is hidden on the second node.
#   srun --ntasks-per-node=2 over both nodes gives each its agent, with the
#   CPUs Slurm gave the job there;
#   a task naming the plugin runs on the second node with ship_modules, and
#   fails there with module_not_found_error without it;
#   one module message serves an agent on each node.
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
srun_job() { slurm_run timeout 120 srun --mpi=pmix "$@" 2>&1; }

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

echo "$failures failed"
[ $failures -eq 0 ]
