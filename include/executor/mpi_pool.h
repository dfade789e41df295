// Copyright ferry authors.
//
// ferry::mpi_pool runs shippable callables on the ranks of an MPI job, with
// the API of ferry::process_pool (submit, map, map_ordered, futures, waits,
// errors, shutdown; executor/internal/pool_front.h). Link ferry::mpi.
//
//   int main(int argc, char** argv) {
//     ferry::serve_if_mpi_agent(argc, argv);  // first: ranks other than 0 serve here
//     ferry::mpi_pool pool;                   // rank 0 only
//     auto f = pool.submit([](int a, int b) { return a + b; }, 2, 3);
//     f.get();  // 5
//   }
//
//   mpirun -n 4 ./program
//
// Rank 0 runs the program. On every host, one other rank is the node agent:
// it runs a local ferry::process_pool and never runs a task itself, so a
// task that crashes, runs out of time or memory fails its own future
// (ferry::worker_died_error naming the host) and MPI never sees a rank die.
// Further ranks on a host wait for the end. Rank 0 keeps every agent's
// workers busy, with a few tasks in flight per worker, more for short tasks. docs/api/mpi.md
// tells the rest, what a dead host does included.
//
// mpi_pool is a handle: copies refer to the same pool. One pool at a time per
// job: its shutdown (or the last handle's destruction) stops the agents'
// local pools, and the agents then serve the job's next pool.
#ifndef FERRY_EXECUTOR_MPI_POOL_H_
#define FERRY_EXECUTOR_MPI_POOL_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "executor/internal/config.h"
#include "executor/errors.h"
#include "executor/future.h"
#include "executor/internal/pool_front.h"
#include "executor/ordered_results.h"
#include "executor/pool_options.h"
#include "executor/shutdown_options.h"

namespace ferry {

struct mpi_pool_options {
  // Each node agent's local pool. start: spawn (the default) or plugin;
  // fork is refused (a forked child of an MPI process inherits its MPI
  // state). max_workers 0: each host's cpu_count(). The initializer runs
  // in each worker of every agent. The MPI launcher's variables (OMPI_*,
  // PMIX_*, PMI_*, HYDRA_*) are added to unset_env.
  pool_options local{};
  // Tasks each agent holds per worker, so that a worker starts its next task
  // as soon as it finishes one instead of a round trip later.
  std::size_t tasks_in_flight_per_worker = 2;
  // Short tasks need more in flight than that to keep workers busy across
  // the hop to the agent. So, beyond workers x tasks_in_flight_per_worker,
  // an agent is also sent small tasks (bodies up to 16 KiB) ahead: as many
  // as it finished in this much time at its recent rate, up to 64 per
  // worker. Tasks longer than this keep the fixed window, so that they
  // still spread over agents. The rate is the recent one: long tasks sent
  // right after many short ones may go ahead in the window the short ones
  // made, until a few milliseconds without answers shrink it. Zero: the
  // window is fixed.
  std::chrono::microseconds work_ahead = std::chrono::milliseconds(2);
  // Send the file of a module a task names to an agent before the task, for
  // a host whose workers cannot find it (not on a shared file system, nor
  // in a search directory): each agent stores it in a private directory of
  // its workers' search path, after checking its SHA-256 and build-id.
  // Every module but the program is sent, once per agent.
  bool ship_modules = false;
  // An agent that sends nothing for this long (it sends a heartbeat every
  // second, or four per agent_timeout when that is shorter) is taken for
  // lost: the tasks sent to it fail with ferry::worker_died_error naming
  // its host, and the pool goes on with the others. At least 1 s (an
  // agent's one thread may be busy that long starting its workers or
  // taking a large message): the constructor throws ferry::error
  // otherwise. Only matters where the MPI runtime lets the job go on when
  // a process stops or dies (docs/api/mpi.md).
  std::chrono::milliseconds agent_timeout = std::chrono::seconds(30);
  // Spawn mode: in a job of one rank (`mpirun -n 1 ./program`), start this
  // many more processes of the program with MPI_Comm_spawn to serve as
  // agents (docs/api/mpi.md says where this is fragile). 0: world mode, the
  // job's other ranks are the agents. The job's later pools are served by
  // the agents the first spawned: this must then be their count or 0.
  std::size_t spawn_agents = 0;
  // Largest piece of a message in one MPI call; at most 1 GiB.
  std::size_t max_piece = std::size_t{1} << 30;
};

namespace detail {
class mpi_core;
}

// Call first in main, before anything else: initializes MPI (thread level
// MPI_THREAD_SERIALIZED). On rank 0 it returns, and MPI is finalized when
// the program exits (a pool still running then is shut down first, its
// unsent tasks dropped). On any other rank it serves rank 0's pools one
// after another (as node agent, or waiting) until rank 0 exits, then exits
// the process with status 0. In a worker of an agent's local pool it serves
// that pool, as serve_if_worker does. Throws ferry::error if MPI cannot be
// initialized.
FERRY_MPI_EXPORT void serve_if_mpi_agent(int argc, char** argv);

class FERRY_MPI_EXPORT mpi_pool : public detail::pool_front {
 public:
  // Sends the agents their options and waits (at most 60 s) for each to
  // say it is ready. Throws ferry::error on a rank other than 0, without
  // serve_if_mpi_agent, while another pool of this job runs (until its
  // shutdown has waited for its agents), after a pool lost a rank, for
  // start_method::fork, for an agent_timeout under 1 s or local options
  // that process_pool's constructor refuses, and when an agent does not answer;
  // ferry::not_shippable_error when the initializer cannot be shipped.
  explicit mpi_pool(mpi_pool_options options = {});
  ~mpi_pool();
  mpi_pool(const mpi_pool&);
  mpi_pool& operator=(const mpi_pool&);
  // A handle moved from has no pool: every call on it but == and
  // assignment throws ferry::error naming the call.
  mpi_pool(mpi_pool&&) noexcept;
  mpi_pool& operator=(mpi_pool&&) noexcept;

  // Workers over all agents.
  std::size_t max_workers() const;
  // Each agent's host, one entry per agent.
  std::vector<std::string> hosts() const;
  // The options it was made with, as process_pool::options().
  const mpi_pool_options& options() const;

  friend bool operator==(const mpi_pool& a, const mpi_pool& b) noexcept {
    return a.core_ == b.core_;
  }

 private:
  explicit mpi_pool(std::shared_ptr<detail::mpi_core> core);
  std::shared_ptr<detail::mpi_core> core_;
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_MPI_POOL_H_
