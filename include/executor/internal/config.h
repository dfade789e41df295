// Copyright ferry authors. Internal: what the executor's and the MPI pool's
// public headers export. Each library is built with hidden visibility and
// exports, by its own macro, what its headers declare for users.
#ifndef FERRY_EXECUTOR_INTERNAL_CONFIG_H_
#define FERRY_EXECUTOR_INTERNAL_CONFIG_H_

// Defined by libferry_executor (ferry::executor).
#define FERRY_EXECUTOR_EXPORT __attribute__((visibility("default")))
// Defined by libferry_mpi (ferry::mpi): include/executor/mpi_pool.h only.
#define FERRY_MPI_EXPORT __attribute__((visibility("default")))

#endif  // FERRY_EXECUTOR_INTERNAL_CONFIG_H_
