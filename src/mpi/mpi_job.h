// Copyright ferry authors. Internal: this process's place in the MPI job
// (mpi_job.cc): set up by serve_if_mpi_agent, read by the pool and agents.
#ifndef FERRY_SRC_MPI_MPI_JOB_H_
#define FERRY_SRC_MPI_MPI_JOB_H_

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mpi/doorbell_linux.h"
#include "mpi/mpi_channel.h"

namespace ferry::detail::mpi {

// What rank 0's exit calls to shut down a pool that outlives main. Set by
// the last pool made, its owner; cleared by that pool's destruction, not by
// an earlier pool's (one shut down but kept until after the next was made).
class exit_hook {
 public:
  void set(const void* owner, std::function<void()> shut) {
    owner_ = owner;
    shut_ = std::move(shut);
  }
  void clear(const void* owner) {
    if (owner_ != owner) return;
    owner_ = nullptr;
    shut_ = nullptr;
  }
  // Calls it, if set; what it throws is dropped, as the job is ending.
  void run() const noexcept {
    if (!shut_) return;
    try {
      shut_();
    } catch (...) {
    }
  }

 private:
  const void* owner_ = nullptr;
  std::function<void()> shut_;
};

struct job {
  bool initialized = false;  // serve_if_mpi_agent ran
  // The ranks of the pool: MPI_COMM_WORLD, or rank 0 and the agents it
  // spawned (mpi_pool_options::spawn_agents), merged into one.
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0;
  int size = 1;
  std::vector<std::string> args;  // the program's, for spawning agents
  std::vector<int> agents;   // every host's agent, lowest rank first (known to all)
  std::string host;
  // Rank 0's pools, one at a time (begin_pool, end_pool): none running,
  // one running (from its constructor until its agents answered its
  // stop), or none ever again (the job is ending). Written by the thread
  // that ends a pool (its manager), read by the one that makes the next.
  enum class pool_phase { idle, running, job_ending };
  std::atomic<pool_phase> pool{pool_phase::idle};
  // Shuts the running pool down when rank 0 exits with it (a handle kept
  // past main, or std::exit).
  exit_hook shut_running_pool;
  // Ranks that stopped answering: MPI cannot end normally, so the job is
  // aborted at rank 0's exit, and it has no further pool.
  std::vector<int> lost;
  // Spawn mode: processes joined by MPI_Comm_spawn disconnect from each
  // other (rank 0 at its exit) before each finalizes MPI. Finalizing alone
  // while connected lets the first to leave close the sockets the other
  // still sends on, and that one's MPI_Finalize then hangs.
  bool spawned = false;
  MPI_Comm intercomm = MPI_COMM_NULL;  // from MPI_Comm_spawn or get_parent

  // One doorbell per rank of this host (doorbell_linux.h), in memory they
  // share, and those ranks in the same order; null when that memory could
  // not be made (then every wait is timed).
  doorbell* bells = nullptr;
  std::vector<int> host_ranks;

  // This process is its host's node agent.
  bool is_agent() const { return std::find(agents.begin(), agents.end(), rank) != agents.end(); }
  // The doorbell of `r`, or null when r is on another host.
  doorbell* bell_of(int r) const {
    if (bells == nullptr) return nullptr;
    const auto it = std::find(host_ranks.begin(), host_ranks.end(), r);
    return it == host_ranks.end() ? nullptr : bells + (it - host_ranks.begin());
  }
};

// The process's one job record. Touched by the thread that calls MPI.
job& this_job();

// Makes `comm` the pool's ranks and elects each host's agent; collective
// over comm.
void join_job(MPI_Comm comm);

// Rank 0 of a job of one rank: starts `count` more processes of this
// program with MPI_Comm_spawn, which serve as agents, and joins them.
// Throws ferry::error when MPI cannot start them.
void spawn_agents(std::size_t count);

// A spawned agent, once it has served: waits for rank 0's exit, then
// disconnects from it (job::spawned).
void wait_to_finalize();

// Spawn mode, both sides: frees the pool's communicator and disconnects the
// intercommunicator it was merged from; collective, it returns once no
// message between the two jobs is pending. Nothing may be pending on the
// pool's communicator.
void disconnect_spawned();

// Rank 0, before a pool talks to the agents: the job is then running it.
// Throws ferry::error, saying what to do, while another pool runs, after a
// rank was lost, or once the job is ending.
void begin_pool(job& j);

// Rank 0, once a pool's agents answered its stop (or it never reached
// them): another pool may be made, unless `lost` (ranks that did not
// answer, added to job::lost) is not empty.
void end_pool(job& j, const std::vector<int>& lost = {});

// The ranks of `ranks` that are not in `excluded`, in their order.
std::vector<int> ranks_except(const std::vector<int>& ranks, const std::vector<int>& excluded);

// Rank 0: tells each of `ranks` to stop and waits for each to answer. An
// agent serving a pool stops that pool and waits for the next one; an idle
// agent and any other rank end. `on_other`, if set, is given every other
// message that arrives meanwhile (an agent's last worker events); the rest
// are dropped. Never give it a lost rank: it would wait for ever.
void stop_ranks(const std::vector<int>& ranks, bool kill_running,
                const std::function<void(message&)>& on_other = {});

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_MPI_JOB_H_
