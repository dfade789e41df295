// Copyright ferry authors. Internal: where a pool takes tasks in, shared by
// pool_core (the process pool) and mpi_core (the MPI pool): the tasks not
// yet sent, their ids, and whether, and how, the pool was shut down; the
// one submit path, shutdown's first half and the failing of what is
// pending, for both.
//
// Thread-safety: every member but mu is guarded by mu, which the owner also
// uses for its other shared state (ABSL_GUARDED_BY(intake_.mu)); the tasks
// that close() hands back are failed after letting go of it (a failed
// future runs its callbacks).
#ifndef FERRY_SRC_EXECUTOR_CORE_TASK_INTAKE_H_
#define FERRY_SRC_EXECUTOR_CORE_TASK_INTAKE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <optional>
#include <string_view>
#include <utility>

#include <executor/errors.h>
#include <executor/internal/submit.h>
#include <executor/shutdown_options.h>
#include "executor/core/fork_generation.h"
#include "executor/core/task_events.h"
#include "internal/mutex.h"

namespace ferry::detail {

template <class Task>
class task_intake {
 public:
  mutable mutex mu;
  // Highest priority first (task_record::priority), oldest first within
  // one; the owner's manager takes from the front, and gives back with
  // put_back what it could not run after all.
  std::deque<Task> pending ABSL_GUARDED_BY(mu);

  // Queues `t` behind every pending task of its priority or a higher one.
  // Constant time when the queue's last task has its priority or a higher
  // one (every task, when none has a priority); else a binary search.
  void queue(Task t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (pending.empty() || pending.back().priority >= t.priority) {
      pending.push_back(std::move(t));
      return;
    }
    const int p = t.priority;
    pending.insert(std::partition_point(pending.begin(), pending.end(),
                                        [p](const Task& x) { return x.priority >= p; }),
                   std::move(t));
  }
  // Puts back a task taken from the queue that never ran: ahead of the
  // pending tasks of its priority, which came after it.
  void put_back(Task t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    const int p = t.priority;
    pending.insert(std::partition_point(pending.begin(), pending.end(),
                                        [p](const Task& x) { return x.priority > p; }),
                   std::move(t));
  }

  // The id of one more task, which the caller then queues. Throws
  // ferry::pool_shutdown_error after close(); for a `nested` task (one a
  // running task submits, and may wait for), only after a close that
  // cancels what is pending or kills what runs.
  std::uint64_t admit(bool nested = false) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (fork_generation() != generation_) throw_used_after_fork("a pool");
    if (closed_ && (!nested || refuse_nested_))
      throw pool_shutdown_error(
          "ferry: the pool was shut down: it takes no more tasks (submit, map, make_actor, an actor's call)");
    return next_id_++;
  }

  // The submitting half of both pools. Under mu: the task's id, its
  // submitted event (told before the manager can see the task, so that no
  // started event comes first; an observer must not call the pool, so
  // holding mu is safe), and the task make(id) builds, queued last.
  // Returns the id and how many tasks were pending before it. Throws
  // ferry::pool_shutdown_error after close().
  template <class Make>
  std::pair<std::uint64_t, std::size_t> submit(pool_observer* observer, std::uint32_t items,
                                               std::string_view name, Make&& make, bool nested = false)
      ABSL_LOCKS_EXCLUDED(mu) {
    mutex_lock lock(mu);
    const std::uint64_t id = admit(nested);
    tell_task(observer, task_event::kind::submitted, {.id = id, .items = items, .name = name});
    const std::size_t before = pending.size();
    queue(make(id));
    return {id, before};
  }

  // Fails the pending task `id`, if it is there, with ferry::cancelled_error,
  // after letting go of mu: one asked to stop (future::cancel(grace)) that
  // is back in the queue, its worker having died before starting it.
  void cancel_pending(std::uint64_t id) ABSL_LOCKS_EXCLUDED(mu) {
    std::optional<Task> found;
    {
      mutex_lock lock(mu);
      auto it = std::find_if(pending.begin(), pending.end(), [&](const Task& t) { return t.id == id; });
      if (it == pending.end()) return;
      found = std::move(*it);
      pending.erase(it);
    }
    found->state->fail(std::make_exception_ptr(cancelled_error()));
  }

  // Whether close() was called (a pool's is_shutdown()).
  bool is_closed() const ABSL_LOCKS_EXCLUDED(mu) {
    mutex_lock lock(mu);
    return closed_;
  }

  // Fails every pending task with `error`, after letting go of mu: a pool
  // that cannot run them (no worker can start, every MPI agent is lost).
  void fail_pending(const std::exception_ptr& error) ABSL_LOCKS_EXCLUDED(mu) {
    std::deque<Task> failed;
    {
      mutex_lock lock(mu);
      failed.swap(pending);
    }
    for (Task& t : failed) t.state->fail(error);
  }

  // Takes no more tasks; a later call can only add to what an earlier one
  // asked. Returns the pending tasks that `how` cancels, for the caller to
  // fail with cancelled_by_shutdown().
  std::deque<Task> close(const shutdown_options& how) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    closed_ = true;
    kill_running_ = kill_running_ || how.kill_running;
    refuse_nested_ = refuse_nested_ || how.cancel_pending || how.kill_running;
    std::deque<Task> cancelled;
    if (how.cancel_pending || how.kill_running) cancelled.swap(pending);
    return cancelled;
  }

  bool closed() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return closed_; }
  // Whether a close cancelled what was pending (cancel_pending or
  // kill_running): what the owner holds apart from `pending` is cancelled too.
  bool cancelled() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return refuse_nested_; }
  bool kill_running() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return kill_running_; }

 private:
  bool closed_ ABSL_GUARDED_BY(mu) = false;
  const std::uint64_t generation_ = fork_generation();  // of the process that made the pool
  bool kill_running_ ABSL_GUARDED_BY(mu) = false;
  bool refuse_nested_ ABSL_GUARDED_BY(mu) = false;
  std::uint64_t next_id_ ABSL_GUARDED_BY(mu) = 1;
};

// The priority a task waits at in either pool's queue: its own, but the
// default one for an actor's tasks, which keep the order they were made in.
inline int queue_priority(const task_settings& s) {
  return s.actor.what == actor_route::part::none ? s.priority : 0;
}

// What a pending task cancelled by shutdown fails with.
inline std::exception_ptr cancelled_by_shutdown() {
  return std::make_exception_ptr(
      pool_shutdown_error("ferry: the task was cancelled because the pool was shut down"));
}

// What an actor's call fails with when its constructor call never reached
// the pool (it failed as it was encoded): the pool has no worker for it.
inline std::exception_ptr actor_never_made() {
  return std::make_exception_ptr(
      error("ferry: the actor was never made: its constructor call failed before it reached the pool"));
}

// What a running task stopped by shutdown with kill_running fails with.
inline std::exception_ptr stopped_by_shutdown() {
  return std::make_exception_ptr(
      pool_shutdown_error("ferry: the task was stopped because the pool was shut down with kill_running"));
}

// The first half of shutdown, the same in both pools: closes `intake`,
// wakes the manager, and fails the pending tasks that `how` cancels, after
// letting go of intake.mu. Waiting for the manager is the
// second half (manager_thread::join, or a caller-driven pool's turns).
template <class Task, class Wake>
void close_intake(task_intake<Task>& intake, const shutdown_options& how, Wake&& wake) {
  std::deque<Task> cancelled;
  {
    mutex_lock lock(intake.mu);
    cancelled = intake.close(how);
  }
  wake();
  for (Task& t : cancelled) t.state->fail(cancelled_by_shutdown());
}

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_TASK_INTAKE_H_
