// Copyright ferry authors.
#include <executor/internal/retries.h>

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include <executor/errors.h>
#include <executor/internal/continuation.h>
#include <executor/internal/result_items.h>
#include "executor/core/option_checks.h"
#include "executor/core/task_events.h"
#include "internal/mutex.h"

namespace ferry::detail {
namespace {

// One task across its attempts. Each attempt's end is handled on the
// continuation thread, after the previous one's (an attempt is sent only
// from that handler), so the members are never used by two threads at
// once; but `current`, which a cancel reads from any thread. Never on a
// pool's manager thread: dropping `queue` there could destroy the pool from
// its own thread.
struct attempts final : stop_target {
  // Stops the running attempt, and sends no other.
  void request_stop(std::uint64_t, std::chrono::milliseconds grace) override {
    stopped.store(true);
    if (auto attempt = current()) attempt->request_stop(grace);
  }
  // The task's future is being cancelled (its on_done then cancels the
  // attempt waiting in the queue, and the task never ran): where an attempt
  // had started, it runs on (or is being stopped), its result dropped, and
  // the error says so rather than "cancelled before it started". Only asks:
  // an attempt cancelled here would end on the continuation thread, which
  // could finish the task's future first.
  std::exception_ptr cancel_error() override {
    const std::shared_ptr<future_state> attempt = current();
    if (attempt == nullptr || !attempt->started()) return nullptr;
    return std::make_exception_ptr(cancelled_error(
        "ferry: the task was cancelled after an attempt of it had started: that attempt ends as it would "
        "(or is stopped, with cancel(grace)), its result dropped, and no other is sent"));
  }

  // Where the running attempt's pool runs its loop. (Between an attempt's
  // end and the next one's start, the continuation thread has the task.)
  bool finishes_here() const override {
    const std::shared_ptr<future_state> attempt = current();
    return attempt != nullptr && attempt->finishes_here();
  }

  std::shared_ptr<task_queue> queue;  // null once the last attempt ended
  send_attempt send;
  std::shared_ptr<future_state> out = make_future_state();
  // The attempt sent last. Behind a lock rather than in a
  // std::atomic<std::shared_ptr>: libstdc++ 12's releases its internal
  // lock after a load with relaxed order, which ThreadSanitizer reports as
  // a race with the next store, and a wait in a pool's pass asks on
  // every look.
  std::shared_ptr<future_state> current() const {
    mutex_lock lock(current_mu);
    return current_;
  }
  void set_current(std::shared_ptr<future_state> attempt) {
    mutex_lock lock(current_mu);
    current_.swap(attempt);  // the previous attempt goes after the lock, in `attempt`
  }
  mutable mutex current_mu;
  std::shared_ptr<future_state> current_ ABSL_GUARDED_BY(current_mu);
  unsigned left = 0;
  bool on_exception = false;
  std::string name;
  std::vector<std::string> earlier;  // how each attempt before `current` ended
  std::atomic<bool> stopped{false};  // by future::cancel(grace)

  // The last attempt ended: the pool and the future's link back here (a
  // cycle: out holds this as its stop target) are let go.
  void end() {
    queue.reset();
    out->set_stop_target(nullptr, 0);
  }
};

void watch(const std::shared_ptr<attempts>& a);

// What a finished attempt's task threw, if it threw and that is to be
// retried; "" otherwise.
std::string thrown(const future_state& task) {
  try {
    item_value(result_items(task, 1).front());
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  } catch (...) {
    return "threw an exception that is not a std::exception";
  }
  return {};
}

// The task's final error: the pool's own errors name the task and the
// attempts before it.
std::exception_ptr final_error(const attempts& a, std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const worker_died_error& d) {
    if (!a.earlier.empty() || !a.name.empty())
      return std::make_exception_ptr(worker_died_error(d.pid(), d.cause(), a.earlier, a.name, d.crash()));
  } catch (const task_timeout_error& t) {
    if (!a.name.empty()) return std::make_exception_ptr(task_timeout_error("task '" + a.name + "': " + t.what()));
  } catch (...) {
  }
  return e;
}

void send_again(const std::shared_ptr<attempts>& a) {
  run_continuation([a] {
    try {
      a->set_current(a->send(*a->queue));
    } catch (...) {  // the pool was shut down meanwhile
      a->end();
      a->out->fail(std::current_exception());
      return;
    }
    watch(a);
  });
}

void attempt_ended(const std::shared_ptr<attempts>& a) {
  const std::shared_ptr<future_state> task = a->current();
  if (a->out->ready()) {  // cancelled: its result is dropped
    a->end();
    return;
  }
  const std::exception_ptr e = task->error();
  std::string ended;
  if (e) {
    try {
      std::rethrow_exception(e);
    } catch (const worker_died_error& d) {
      ended = "worker " + std::to_string(d.pid()) + " " + d.cause();
    } catch (...) {
    }
  } else if (a->on_exception && has_exception(*task)) {
    ended = thrown(*task);
  }
  if (!ended.empty() && a->left > 0 && !a->stopped.load()) {
    --a->left;
    tell_task(a->queue->observer(), task_event::kind::retried, {.name = a->name}, 0, ended);
    a->earlier.push_back(std::move(ended));
    send_again(a);
    return;
  }
  a->end();  // before the future finishes: its user may then drop the pool
  if (e)
    a->out->fail(final_error(*a, e));
  else
    a->out->finish(task->result());
}

void watch(const std::shared_ptr<attempts>& a) {
  a->current()->on_done([a] { run_continuation([a] { attempt_ended(a); }); });
}

}  // namespace

std::shared_ptr<future_state> run_with_retries(std::shared_ptr<task_queue> queue, send_attempt send,
                                               const task_options& options, unsigned retries) {
  check_task_timeout(options.timeout, "task_options::timeout");
  auto a = std::make_shared<attempts>();
  a->send = std::move(send);
  a->left = retries;
  a->on_exception = options.retry_on_exception;
  a->name = options.name;
  a->set_current(a->send(*queue));
  a->queue = std::move(queue);
  a->out->set_stop_target(a, 0);
  // Cancelling the task's future cancels the attempt waiting in the queue.
  std::weak_ptr<attempts> weak = a;
  a->out->on_done([weak] {
    if (auto held = weak.lock())
      if (auto current = held->current()) current->cancel();
  });
  watch(a);
  return a->out;
}

}  // namespace ferry::detail
