// Copyright ferry authors. Internal: a worker's loop over its tasks, once
// it said ready, and what lets a task submit tasks to its own pool
// (ferry::this_task::pool()) and wait for them.
//
//   pool ──task──▶ serve(): run it ──result──▶ pool
//                    │ the task submits ──submit──▶ pool (queued as any task)
//                    │ and waits: help_until()
//                    │   ──waiting──▶ pool, which sends only that task's children
//                    │   ◀─task── runs it here, on top (──began── first) ──result──▶
//                    │   ◀─nested_result── finishes the future it waits for
//                    │   ──resumed──▶ pool
//
// A task that waits does not block: the worker goes on reading its
// connection, running the tasks it is sent (each on top of the waiting
// one, on this thread's stack) and finishing the futures of the tasks it
// submitted, until what it waits for is ready. So a pool whose every
// worker waits still runs the tasks they wait for, and no worker process
// is added.
//
// Thread-safety: one thread, the one that runs tasks; this_task::pool()'s
// handle refuses to be used from another.
#ifndef FERRY_SRC_EXECUTOR_WORKER_TASK_SERVER_H_
#define FERRY_SRC_EXECUTOR_WORKER_TASK_SERVER_H_

#include <chrono>
#include <exception>
#include <span>
#include <string_view>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <executor/internal/future_state.h>
#include <executor/internal/submit.h>
#include "executor/front/wait_helper.h"
#include "executor/pool/spin_policy.h"
#include "executor/wire/connection.h"
#include "executor/worker/memory_watch.h"
#include "executor/worker/task_stop.h"

namespace ferry::detail {

class nested_queue;
class kept_heap;

class task_server final : public wait_helper {
 public:
  struct settings {
    std::uint64_t memory_limit = 0;  // pool_options::max_worker_memory; 0: none
    std::chrono::microseconds spin{0};
    // The process's heap, kept between tasks and given back once idle
    // (kept_heap.h), or null; outlives the server.
    kept_heap* heap = nullptr;
  };
  task_server(connection& pool, settings s, task_stop& stop);
  ~task_server();
  task_server(const task_server&) = delete;
  task_server& operator=(const task_server&) = delete;

  // Says ready, then runs tasks until told to exit, the pool is gone, or
  // the worker is over its memory limit; returns the exit status
  // (protocol.h).
  int serve();

  bool help_until(const std::function<bool()>& done, std::chrono::steady_clock::time_point deadline) override;

  // Sends a nested task; its future's state, finished when its result comes.
  std::shared_ptr<future_state> submit(const task_settings& settings, std::string_view task_body);
  // The handle's queue; made by the first call of a task.
  std::shared_ptr<task_queue> queue();

 private:
  // What one message asked; exit and end mean the pool wants this worker gone.
  enum class next { go_on, exit };
  next handle(message& m);
  void run(message& m);

  connection& pool_;
  const settings settings_;
  task_stop& stop_;
  memory_watch watch_;
  spin_policy waiting_;
  std::vector<std::uint64_t> running_;  // the tasks on this thread's stack, innermost last
  bool exit_asked_ = false;  // an exit came while tasks waited
  bool retiring_ = false;    // over the memory limit after a task
  std::exception_ptr fatal_;  // the connection broke while a task waited: the worker ends
  std::uint64_t next_nested_ = 1;
  std::map<std::uint64_t, std::shared_ptr<future_state>> nested_;  // submitted, not yet answered
  std::shared_ptr<nested_queue> queue_;
};

// The queue of this thread's task server while it runs a task, or null
// (ferry::this_task::pool()).
std::shared_ptr<task_queue> this_thread_nested_queue();

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WORKER_TASK_SERVER_H_
