// Copyright ferry authors. Internal: the events a pool tells its observer
// (executor/events.h), made from what the pool holds of a task or a worker.
// Each call does nothing when nobody listens (a null observer), so that a
// pool without one pays a test of a pointer per event. What the observer
// throws is dropped (core/user_callback.h).
//
// Thread-safety: whatever the observer allows (it is told from several
// threads); these keep no state.
#ifndef FERRY_SRC_EXECUTOR_CORE_TASK_EVENTS_H_
#define FERRY_SRC_EXECUTOR_CORE_TASK_EVENTS_H_

#include <chrono>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include <executor/events.h>
#include "executor/core/user_callback.h"

namespace ferry::detail {

struct task_facts {
  std::uint64_t id = 0;
  std::uint32_t items = 1;
  std::string_view name{};
  int worker = 0;
  std::string_view host{};
  std::chrono::steady_clock::time_point running_since{};  // epoch: it never ran
};

// `items_threw`: finished, how many of its items hold an exception.
inline void tell_task(pool_observer* o, task_event::kind what, const task_facts& t, std::uint32_t items_threw = 0,
                      std::string_view error = {}) {
  if (o == nullptr) return;
  const auto now = std::chrono::steady_clock::now();
  task_event e;
  e.what = what;
  e.task = t.id;
  e.items = t.items;
  e.name = t.name;
  e.worker = t.worker;
  e.host = t.host;
  e.at = now;
  if (t.running_since != std::chrono::steady_clock::time_point{} &&
      (what == task_event::kind::finished || what == task_event::kind::failed))
    e.duration = now - t.running_since;
  e.threw = items_threw != 0;
  e.items_threw = items_threw;
  e.error = error;
  call_user(user_callback::observer, [&] { o->on_task(e); });
}

inline void tell_worker(pool_observer* o, worker_event::kind what, int pid, std::string_view why = {},
                        std::string_view host = {}) {
  if (o == nullptr) return;
  worker_event e;
  e.what = what;
  e.pid = pid;
  e.host = host;
  e.at = std::chrono::steady_clock::now();
  e.why = why;
  call_user(user_callback::observer, [&] { o->on_worker(e); });
}

// What an error says, for a failed event.
inline std::string what_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_TASK_EVENTS_H_
