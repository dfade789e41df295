#!/bin/bash
# A batch job that runs an MPI pool program: `sbatch examples/mpi/slurm_job.sh PROGRAM`.
# docs/api/mpi.md quotes the region below; tests/slurm/slurm_test.sh submits it.
# [snippet:job]
#SBATCH --job-name=ferry-mpi
#SBATCH --ntasks=3
#SBATCH --output=ferry-mpi-%j.out
# Rank 0 and, on each node, one agent whose workers use the CPUs Slurm gave
# the job there (SLURM_CPUS_ON_NODE); further ranks on a node only wait.
srun --mpi=pmix "$@"
# [end]
