// Copyright ferry authors. Internal: the face of a process pool that ferry's
// MPI agent (src/mpi/agent.cc) drives on its host. Exported from
// libferry_executor for libferry_mpi; the pool behind it (pool_core) stays
// inside libferry_executor.
//
// Thread-safety: a local pool is driven by one thread, the one that created
// it; every call is made from that thread. Futures it returns finish, and
// their on_done callbacks run, inside turn() and shutdown().
#ifndef FERRY_SRC_EXECUTOR_CORE_LOCAL_POOL_H_
#define FERRY_SRC_EXECUTOR_CORE_LOCAL_POOL_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <memory>
#include <string>
#include <vector>

#include <executor/internal/future_state.h>
#include <executor/internal/submit.h>
#include <executor/pool_options.h>
#include "internal/export.h"

namespace ferry::detail {

class FERRY_INTERNAL_EXPORT local_pool : public task_queue {
 public:
  // A pool that runs only while its creator calls turn(). Throws what
  // process_pool's constructor throws. `initializer_record`: the
  // initializer as protocol::encode_initializer wrote it, for a pool whose
  // options cannot carry it (an MPI agent's); empty: options.initializer.
  // `host`: the agent's, named in its workers' output lines.
  static std::shared_ptr<local_pool> create(pool_options options, std::string initializer_record = {},
                                            std::string host = {});
  ~local_pool() override;

  // Queues a task already encoded elsewhere (its message body, as
  // protocol::encode_task wrote it). The admission rules are those of
  // submit_task; `settings` are the task's own (task_options). Its number
  // where it was submitted (rank 0 of an MPI pool), `origin_id`, and its
  // name are what its workers' output prefixes show instead of this pool's
  // own number. Throws ferry::pool_shutdown_error after shutdown.
  virtual std::shared_ptr<future_state> submit_body(std::string body, const task_settings& settings,
                                                    std::uint64_t origin_id) = 0;
  // One pass of the pool's loop: sends queued tasks, waits up to `timeout`
  // (less when a timer is due) for a worker's message or exit, handles what
  // came and enforces the timers. Returns false once the pool is shut down
  // and drained and its workers are stopped.
  virtual bool turn(std::chrono::microseconds timeout) = 0;
  // Starts workers up to max_workers() now, instead of as tasks come. A
  // start that fails is handled as one for a task would be.
  virtual void start_workers() = 0;
  virtual std::vector<int> worker_pids() const = 0;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_LOCAL_POOL_H_
