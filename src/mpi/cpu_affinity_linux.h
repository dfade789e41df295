// Copyright ferry authors. Internal: an agent's claim on its host's CPUs
// (cpu_affinity_linux.cc).
#ifndef FERRY_SRC_MPI_CPU_AFFINITY_LINUX_H_
#define FERRY_SRC_MPI_CPU_AFFINITY_LINUX_H_

#include <cstddef>

namespace ferry::detail::mpi {

// Lets this process, and the workers it starts after, run on every CPU the
// host allows it (its cpuset), undoing a launcher's binding: mpirun binds
// each rank to one core in a job of two ranks or fewer, and to one socket
// otherwise, which would leave an agent's pool (max_workers 0:
// cpu_count()) one core or one socket of its host. Best effort: leaves the
// mask as it was where the kernel refuses.
void use_every_allowed_cpu() noexcept;

// The CPUs a batch system gave this job on this host, where it says so:
// Slurm's SLURM_CPUS_ON_NODE, a positive number; 0 otherwise. An agent's
// pool with max_workers 0 has that many workers instead of the host's
// cpu_count(): a job given 4 of a node's 64 cores must not start 64.
std::size_t cpus_given_by_batch_system() noexcept;

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_CPU_AFFINITY_LINUX_H_
