// Copyright ferry authors. Internal: the state a ferry::future shares with
// the pool that completes it. Declared here because future's templates use
// it; users never name it.
//
// Thread-safety: every member may be called from any thread.
#ifndef FERRY_EXECUTOR_INTERNAL_FUTURE_STATE_H_
#define FERRY_EXECUTOR_INTERNAL_FUTURE_STATE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "executor/internal/config.h"

namespace ferry::detail {

// A finished task's result as received (src/executor/wire/message_io.h).
class message_body;

// Where a request to stop a running task goes: the pool that sent it (or
// the front that retries it), which knows it by `id`.
class FERRY_EXECUTOR_EXPORT stop_target {
 public:
  virtual void request_stop(std::uint64_t id, std::chrono::milliseconds grace) = 0;
  // A thread waits for the task's future and polls: the pool may send what
  // is queued and read what has arrived on that thread, rather than wake
  // its manager for it (executor/pool/pool_core.h). Never blocks.
  virtual void help_wait() {}
  // A thread is about to wait without polling (it blocks, or registers a
  // callback): the pool's manager must watch the task from now on.
  virtual void announce_wait() {}
  // The task's future, still pending, is being cancelled (cancel(), or
  // cancel(grace) once request_stop went here): the error it fails with,
  // where the target knows better than ferry::cancelled_error's "cancelled
  // before it started" (a front that retries, an attempt of which already
  // ran); null for that. Called without the state's lock.
  virtual std::exception_ptr cancel_error() { return nullptr; }
  // Whether the calling thread runs a pass of the loop that would finish
  // the task (a future's callback, an observer, called from that pass): a
  // wait for the task there could never end, as the pass must return first.
  virtual bool finishes_here() const { return false; }

 protected:
  // Out of line: the class's type information then lives in
  // libferry_executor alone.
  virtual ~stop_target();
};

// The untyped state shared by a future and the pool. Only
// make_future_state() makes one: its data and lock live in the library
// (src/executor/front/future_state.cc), where the compiler checks the locking,
// and not in this header.
class FERRY_EXECUTOR_EXPORT future_state {
 public:
  future_state(const future_state&) = delete;
  future_state& operator=(const future_state&) = delete;

  // pending -> running. False if it was cancelled (or failed) before.
  bool start();
  // Whether start() succeeded once: the task was sent (it may have finished
  // since). False for one cancelled or failed while pending.
  bool started() const;
  // pending -> finished with ferry::cancelled_error. False once running.
  bool cancel();
  // Asks its stop target, if it has one, to stop it, with `grace` before
  // its worker is killed; then cancel(). False once finished, or running
  // with no target.
  bool request_stop(std::chrono::milliseconds grace);
  // Where request_stop goes; set by the pool before the state is shared.
  // Kept until the state is destroyed (letting it go as the task finishes
  // would move its count between the pool's thread and the submitter's on
  // every task); a target that holds the state must reset it.
  void set_stop_target(std::shared_ptr<stop_target> target, std::uint64_t id);
  // The same for a state no other thread has yet (a pool's, as it queues
  // the task): without the lock.
  void bind_stop_target(std::shared_ptr<stop_target> target, std::uint64_t id);
  // -> finished with a result body, or with an error; later calls are ignored.
  void finish(std::shared_ptr<const message_body> result);
  void fail(std::exception_ptr error);
  // -> finished with a value made in this process (a continuation's, a
  // coroutine's, when_all's), of the type its future names; never null.
  void finish_local(std::shared_ptr<const void> value);

  // Both yield for up to 50 us (never past the deadline) before blocking,
  // so that a result about to arrive does not cost a wake-up; meanwhile
  // they poll the task's pool (stop_target::help_wait), as ready() does
  // once when the task is not finished. On the
  // continuation thread they run queued continuations while they wait: the
  // one they wait for may be among them. These two and on_done throw
  // ferry::error, unless finished, in a process forked from the one that
  // made the state (core/fork_generation.h): nothing there would finish it.
  // They also throw ferry::error, unless finished or the deadline has
  // passed, where finishes_here().
  void wait() const;
  bool wait_until(std::chrono::steady_clock::time_point deadline) const;
  bool ready() const;
  // Whether the state is not finished and the calling thread runs a pass
  // of the loop that is to finish it, or, for a state made in this process
  // from others (derive_from), that the others it needs are so: a callback
  // given to on_done, or a pool_observer, looking at a task of its own
  // pool or a future made from one. A wait for it there could never end.
  bool finishes_here() const;
  // For a state finished from others in this process: then()'s, from its
  // future; when_all's and a task's with future arguments, from every
  // input (which all must finish); when_any's, from every input (of which
  // one must). Held weakly.
  enum class needs { all, any };
  void derive_from(const std::shared_ptr<future_state>& source, needs need = needs::all);
  // Runs cb once finished: at once on this thread if it is, else on the
  // thread that finishes it (the pool's manager thread, or a thread
  // polling the pool while it waits; keep cb short).
  void on_done(std::function<void()> cb);

  // Valid once finished.
  std::exception_ptr error() const;
  std::shared_ptr<const message_body> result() const;
  std::shared_ptr<const void> local_value() const;  // null unless finish_local

 protected:
  future_state() = default;
  ~future_state() = default;
};

// A pending state.
FERRY_EXECUTOR_EXPORT std::shared_ptr<future_state> make_future_state();

// Throws ferry::error for a future without a state (default-constructed or
// moved from), named by what was called on it.
[[noreturn]] FERRY_EXECUTOR_EXPORT void throw_no_future_state(const char* call);

// A scope of a pool's pass on this thread (stop_inbox::pass_mark): only
// there may a wait find that it could never end, and a state derived from
// others is asked only there.
FERRY_EXECUTOR_EXPORT void enter_pool_pass() noexcept;
FERRY_EXECUTOR_EXPORT void leave_pool_pass() noexcept;

// What a callback given to future::on_done threw, which has no caller of
// the user's to reach: dropped, and said once on stderr.
FERRY_EXECUTOR_EXPORT void drop_on_done_exception(std::exception_ptr e) noexcept;

// What a future<void> made in this process finishes with (finish_local's
// value is never null).
FERRY_EXECUTOR_EXPORT std::shared_ptr<const void> void_value();

// Indices of finished futures in the order they finished, for wait_any and
// as_completed; made by make_finish_queue(). Thread-safety: any thread.
class FERRY_EXECUTOR_EXPORT finish_queue {
 public:
  finish_queue(const finish_queue&) = delete;
  finish_queue& operator=(const finish_queue&) = delete;

  // `s` is one of the states whose indices come (by its on_done), so
  // that a wait for them where none could finish throws.
  void watch(const std::shared_ptr<future_state>& s);
  void push(std::size_t index);
  // Takes the next finished index, waiting for it without bound, or until
  // the deadline (nullopt then). Both throw ferry::error where a wait
  // could never end: none is finished yet, and every watched state
  // finishes_here() (as future_state::wait does).
  std::size_t pop();
  std::optional<std::size_t> pop_until(std::chrono::steady_clock::time_point deadline);

 protected:
  finish_queue() = default;
  ~finish_queue() = default;
};

FERRY_EXECUTOR_EXPORT std::shared_ptr<finish_queue> make_finish_queue();

// The positions of the first of each state in `states`, in order; each null
// is kept (a future without a state, on which the wait then throws).
// as_completed yields a future given twice once, as Python's does.
FERRY_EXECUTOR_EXPORT std::vector<std::size_t> first_of_each_state(const std::vector<const future_state*>& states);

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_FUTURE_STATE_H_
