// Copyright ferry authors. Internal: an agent's claim on its host's CPUs
// (cpu_affinity_linux.cc).
#ifndef FERRY_SRC_MPI_CPU_AFFINITY_LINUX_H_
#define FERRY_SRC_MPI_CPU_AFFINITY_LINUX_H_

namespace ferry::detail::mpi {

// Lets this process, and the workers it starts after, run on every CPU the
// host allows it (its cpuset), undoing a launcher's binding: mpirun binds
// each rank to one core in a job of two ranks or fewer, and to one socket
// otherwise, which would leave an agent's pool (max_workers 0:
// cpu_count()) one core or one socket of its host. Best effort: leaves the
// mask as it was where the kernel refuses.
void use_every_allowed_cpu() noexcept;

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_CPU_AFFINITY_LINUX_H_
