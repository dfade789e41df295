// Copyright ferry authors. Internal: this process's place in the MPI job
// (mpi_job.cc): set up by serve_if_mpi_agent, read by the pool and agents.
#ifndef FERRY_SRC_MPI_MPI_JOB_H_
#define FERRY_SRC_MPI_MPI_JOB_H_

#include <string>
#include <vector>

namespace ferry::detail::mpi {

struct job {
  bool initialized = false;  // serve_if_mpi_agent ran
  int rank = 0;
  int size = 1;
  bool agent = false;        // the node agent of this host
  std::string host;
  bool pool_made = false;    // rank 0 made its one pool
  bool stopped = false;      // rank 0 told the others to stop
  bool rank_lost = false;    // one never answered: abort instead of finalizing
};

// The process's one job record. Touched by the thread that calls MPI.
job& this_job();

// Rank 0: tells every other rank to stop, once, and waits for each to
// answer but the `lost` ones. With a rank lost, MPI cannot end normally:
// the job is then aborted when rank 0 exits (never a hang).
void stop_other_ranks(bool kill_running, const std::vector<int>& lost = {});

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_MPI_JOB_H_
