// Copyright ferry authors. Internal: this process's place in the MPI job
// (mpi_job.cc): set up by serve_if_mpi_agent, read by the pool and agents.
#ifndef FERRY_SRC_MPI_MPI_JOB_H_
#define FERRY_SRC_MPI_MPI_JOB_H_

#include <string>

namespace ferry::detail::mpi {

struct job {
  bool initialized = false;  // serve_if_mpi_agent ran
  int rank = 0;
  int size = 1;
  bool agent = false;        // the node agent of this host
  std::string host;
  bool pool_made = false;    // rank 0 made its one pool
  bool stopped = false;      // rank 0 told the others to stop
};

// The process's one job record. Touched by the thread that calls MPI.
job& this_job();

// Rank 0: tells every other rank to stop (when no pool did), once.
void stop_other_ranks(bool kill_running);

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_MPI_JOB_H_
