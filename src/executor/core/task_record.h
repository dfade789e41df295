// Copyright ferry authors. Internal: a task as both pools hold it, from
// submit until it ends: pool_core's queue and worker slots (pool_task
// adds its shared buffers' descriptors) and mpi_core's queue and agents
// (its task adds the modules to ship). What the pools' events say of a task
// comes from here (task_events.h).
#ifndef FERRY_SRC_EXECUTOR_CORE_TASK_RECORD_H_
#define FERRY_SRC_EXECUTOR_CORE_TASK_RECORD_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <executor/internal/future_state.h>
#include <executor/internal/submit.h>
#include "executor/core/task_events.h"

namespace ferry::detail {

struct task_record {
  std::uint64_t id = 0;
  std::string body{};  // its message body, kept until it runs, while it may be sent elsewhere
  std::shared_ptr<future_state> state{};
  std::optional<std::chrono::milliseconds> timeout{};  // its own; else the pool's
  std::string name{};       // task_options::name
  // items and priority side by side, where each alone would leave four
  // bytes of padding: a pool_task above 216 bytes made the submit path's
  // allocations cost 3% more instructions (tests/perf).
  std::uint32_t items = 1;  // inputs: a map's chunk has several
  int priority = 0;         // task_options::priority
  actor_route actor{};      // an actor's task: which, and as what
  std::chrono::steady_clock::time_point running_since{};  // when a worker began it (an agent was sent it)

  // What its pool needs of its task_options (a view of this record's name).
  task_settings settings() const { return {timeout, name, priority, actor}; }

  // For its events: on `worker` (its pid; 0 on mpi_pool) and `host`
  // (mpi_pool's).
  task_facts facts(int worker = 0, std::string_view host = {}) const {
    return {.id = id, .items = items, .name = name, .worker = worker, .host = host, .running_since = running_since};
  }
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_TASK_RECORD_H_
