// Copyright ferry authors. Internal: one worker of a pool_core, as its
// manager sees it: the process and its connection, where it is in its life,
// the tasks it was sent, and the deadlines it is under.
//
//   starting ──ready──▶ idle ◀──result── busy
//       │                │ ──task──────▶  │
//       └── kill / retire / lost channel ─┴──▶ ending ──exit──▶ reaped
//
// Its life is one state, phase(); on entering `ending` it records why
// (end_cause), and a later cause replaces that one only if it ranks higher:
// a kill for shutdown over one for a timeout, either over the pool's other
// kills, any kill over an ending the worker chose. The cause is what its
// running task reports (worker_exit.h). Its connection may close before it
// is reaped (a worker that exits closes it first); that is the resource's
// state, not the life's.
//
// Thread-safety: none; the pool's manager alone uses a slot.
#ifndef FERRY_SRC_EXECUTOR_POOL_WORKER_SLOT_H_
#define FERRY_SRC_EXECUTOR_POOL_WORKER_SLOT_H_

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <executor/internal/deadline.h>
#include <executor/internal/future_state.h>
#include "executor/wire/connection.h"
#include "executor/observe/output_lines.h"
#include "executor/pool/start_retry.h"
#include "executor/core/task_record.h"
#include "executor/pool/launcher.h"
#include "executor/pool/worker_exit.h"
#include "internal/unique_fd.h"
#include <serialize/internal/fd_list.h>
#include "executor/core/spare_body.h"

namespace ferry::detail {

// A task of the process pool from submit until it finishes.
struct pool_task : task_record {
  fd_list attachments;  // its shared buffers' memory, kept as the body is
  bool started = false;  // state->start() done: requeued after its worker died unstarted
  // Running, it waits for a nested task (its worker said so): its worker
  // may be sent its children. (Beside `started`: one padding for both.)
  bool waiting = false;
  // Its number where it was submitted, if elsewhere (rank 0 of an MPI
  // pool): shown in its output prefixes instead of `id`.
  std::uint64_t origin_id = 0;
  // Once future::cancel(grace) asked it to stop: when, and how long it may
  // run from then (or from its start, if later) before its worker is killed.
  std::optional<std::chrono::steady_clock::time_point> stop_asked{};
  std::chrono::milliseconds stop_grace{0};
  // A nested task's: the task (of this pool) that submitted it; 0 for one
  // submitted from outside the workers.
  std::uint64_t parent = 0;
  // Waiting: no child of it was queued when the pool's count of nested
  // tasks queued (pool_core::nested_queued_) was this; 0: not looked yet.
  std::uint64_t no_child_at = 0;

  std::uint64_t shown_id() const { return origin_id != 0 ? origin_id : id; }

  // Whether its message is written on its own, not in a batch: its body is
  // in shared memory, or it passes descriptors.
  bool goes_alone(std::size_t shared_memory_threshold) const {
    return body.size() > shared_memory_threshold || !attachments.empty();
  }
  // Once it runs: it will not be sent again. A large body's memory goes to
  // `spare` (if not null) for the next task to be encoded into.
  void forget_message(spare_body* spare) {
    if (spare != nullptr) spare->give(std::move(body));
    body = std::string();
    attachments.clear();
  }
};

class worker_slot {
 public:
  using clock = std::chrono::steady_clock;
  enum class phase { starting, idle, busy, ending, reaped };
  // Why it is ending, lowest rank first.
  enum class end_cause {
    retired,              // asked to exit (idle too long, surplus, max_tasks_per_worker)
    exits_by_itself,      // over its memory limit, it said it would
    channel_lost,         // a write to it failed: it can be sent nothing more
    killed,               // by the pool, for the reason failure() gives
    killed_for_cancel,    // its task, asked to stop by future::cancel(grace), ran past its grace
    killed_for_timeout,   // its task ran past its timeout
    killed_for_shutdown,  // shutdown(kill_running)
  };

  // What a deadline, once passed, makes the pool do.
  enum class deadline {
    exit_grace,     // its channel closed and its process lives on: kill it
    start_timeout,  // it never said ready: kill it
    task_timeout,   // its task ran past pool_options::task_timeout: kill it
    stop_grace,     // its task, asked to stop, ran past its grace: kill it
    idle_timeout,   // idle past pool_options::idle_timeout: retire it
  };
  struct limits {
    std::optional<std::chrono::milliseconds> task_timeout;
    std::chrono::milliseconds idle_timeout;
  };
  // A worker whose socket closed while its process lives on (a task that
  // ran exec, or closed the descriptor) has this long to exit.
  static constexpr std::chrono::milliseconds exit_grace{1000};

  // Owns the launched worker's descriptors from now on; its messages are
  // signed under `key`.
  worker_slot(launched_worker launched, std::string_view key, connection::settings settings);
  worker_slot(const worker_slot&) = delete;
  worker_slot& operator=(const worker_slot&) = delete;

  pid_t pid() const { return pid_; }
  int socket() const { return channel_.fd(); }  // -1 once closed
  int pidfd() const { return pidfd_.get(); }    // -1 once reaped
  int crash_pipe() const { return crash_pipe_.get(); }
  // Every descriptor it holds (a worker started by fork closes them).
  void append_descriptors(std::vector<int>& out) const;
  // Its captured stdout (stream 1) and stderr (2): -1 when not captured, or
  // once the worker's end closed.
  int output(int stream) const { return (stream == 1 ? out_ : err_).get(); }
  // Hands out the whole lines the worker wrote on `stream` so far, as
  // sink(stream, line); `to_the_end`: it is gone, so its last line too.
  void read_output(int stream, bool to_the_end, const std::function<void(int, std::string_view)>& sink);
  phase state() const { return phase_; }
  // Offered tasks and counted as the pool's: not ending, not reaped.
  bool alive() const { return phase_ == phase::starting || phase_ == phase::idle || phase_ == phase::busy; }
  bool ready() const { return phase_ == phase::idle || phase_ == phase::busy; }
  bool reaped() const { return phase_ == phase::reaped; }
  // Why it is ending or ended; nullopt while alive.
  std::optional<end_cause> cause() const {
    return phase_ == phase::ending || reaped() ? std::optional(cause_) : std::nullopt;
  }
  bool stopped_by_shutdown() const { return cause() == end_cause::killed_for_shutdown; }
  std::size_t tasks_sent() const { return tasks_sent_; }

  // Sent and not answered, in order: the first running() of them run,
  // the others wait in the socket (pool_core::dispatch pipelines). Running
  // tasks are a stack: usually one, more while tasks wait for nested tasks
  // and the worker runs others on top of them (worker/task_server.h); the
  // innermost is the last running one, the one whose result comes next.
  std::deque<pool_task>& in_flight() { return in_flight_; }
  const std::deque<pool_task>& in_flight() const { return in_flight_; }
  std::size_t running() const { return running_; }
  // The innermost running task, or null.
  const pool_task* innermost() const { return running_ == 0 ? nullptr : &in_flight_[running_ - 1]; }
  pool_task* innermost() { return running_ == 0 ? nullptr : &in_flight_[running_ - 1]; }
  // The task whose children it may be sent: its innermost, while that
  // waits and nothing else is in flight behind it; else null.
  const pool_task* waiting_for_children() const {
    const pool_task* t = innermost();
    return t != nullptr && t->waiting && running_ == in_flight_.size() && ready() ? t : nullptr;
  }

  // Each deadline this worker is under now, as f(deadline, time_point): the
  // one list that both enforcing timers and computing the next wake-up read.
  template <class F>
  void each_deadline(const limits& l, F&& f) const {
    // Closed while its process lives on, and not killed by the pool yet.
    if (!channel_.is_open() && !reaped() && !killed_by_pool())
      f(deadline::exit_grace, closed_at_ + exit_grace);
    if (phase_ == phase::starting) f(deadline::start_timeout, since_ + start_retry::start_timeout);
    for (std::size_t i = 0; phase_ == phase::busy && i < running_; ++i) {
      const pool_task& t = in_flight_[i];
      const auto timeout = t.timeout ? t.timeout : l.task_timeout;
      if (timeout) f(deadline::task_timeout, later_by(t.running_since, *timeout));
      if (t.stop_asked) f(deadline::stop_grace, later_by(std::max(t.running_since, *t.stop_asked), t.stop_grace));
    }
    // One that holds an actor's object is kept, idle or not.
    if (phase_ == phase::idle && actors_ == 0) f(deadline::idle_timeout, later_by(since_, l.idle_timeout));
  }

  // The actors bound to it (executor/actor.h): while it holds any, the
  // pool does not retire it (idle, surplus, max_tasks_per_worker).
  void host_actor() { ++actors_; }
  void release_actor() { --actors_; }
  bool hosts_actors() const { return actors_ != 0; }

  // Writes the hello, the one message sent unsigned (it carries the key).
  // Throws what connection::send throws.
  // Passes the worker the read end of the pipe whose write end this slot
  // keeps for ask_to_stop.
  void send_hello(const std::string& body);
  // Keeps t in flight (running at once if the worker was idle: its
  // running_since is set then), its message with these header `flags`. An
  // inline message waits in the worker's output until flush(), so that a
  // batch leaves in one write; one that goes alone (pool_task::goes_alone)
  // is written at once, and only when nothing waits (flush first). If that write
  // fails, t never ran: it is given back, for the caller to send elsewhere,
  // and the worker's channel is closed (the worker is no longer offered
  // tasks). Until flush(), every task in flight keeps its body. With
  // `reuse_memory`, a body in shared memory goes through this worker's
  // reusable files (connection::settings::reuse_files).
  std::optional<pool_task> send_task(pool_task t, std::uint8_t flags);
  bool has_output() const { return channel_.has_queued(); }
  // Writes what send_task queued, in one write. Returns the tasks whose
  // messages did not leave whole, in order: they never ran, and go to
  // another worker; the channel is then closed, as for send_task.
  std::vector<pool_task> flush();
  // How many tasks may be in flight at once: two (one running, one waiting
  // in the socket) until its tasks are seen to be short, then as many as
  // about a millisecond of them, so that a batch of small tasks is written
  // and read in one system call each while a task queued behind others
  // usually waits no more than that. A running task already longer than
  // its predecessors counts as their length.
  std::size_t pipeline_depth(clock::time_point now) const;
  // The bodies of the tasks waiting behind the running one, in bytes.
  std::size_t queued_bytes() const;
  // Asks the worker to exit after its current task; kills it if it cannot
  // be asked.
  void retire();
  // Where the bodies of its tasks go once sent and no longer needed (the
  // pool's, which outlives this slot); none: freed.
  void keep_spare_bodies_in(spare_body* spare) { spare_ = spare; }
  // SIGKILL; `why` becomes the reason its task reports, unless the pool had
  // killed it already.
  void kill(std::string why);
  void kill_for_timeout();
  void kill_for_cancel();
  // Asks the worker to stop task `id` if it runs it or is about to
  // (worker/task_stop.h); nothing if the request cannot be written now.
  void ask_to_stop(std::uint64_t id);
  // SIGKILL, or for a thread of this process (start_method::in_process)
  // the shutdown of its socket, which ends it once its task returns. The
  // cause stays what it was.
  void stop();
  void kill_for_shutdown();

  // Reads what the worker wrote and hands each message to `on_message`,
  // which may throw protocol_error for one it did not expect; that, or an
  // authentication failure, kills the worker and nothing more is read from
  // it. Returns once the channel ended, or once a read took less than it
  // had room for (the socket held no more then): the pool reads after poll
  // said input came and polls again, which reports what came since, where
  // a further read would mostly find nothing, a system call per result for
  // no message. With `read_until::drained`, once a read finds nothing.
  using message_handler = std::function<void(worker_slot&, message&)>;
  enum class read_until { short_read, drained };
  void read(const message_handler& on_message, read_until until = read_until::short_read);

  // Its exit became known (the pidfd is readable): reaps it, reading first
  // any result written just before it exited, and returns what the pool
  // knew of it. Its tasks stay in in_flight for the caller.
  exit_facts reap(const message_handler& on_message);

  // The state machine's transitions on what the worker said.
  void became_ready(clock::time_point now);
  void start_failed(std::string what) { start_failure_ = std::move(what); }
  // The innermost running task finished: it leaves in_flight; if it was
  // the only one running, the next (if any) runs. Throws protocol_error
  // when `id` is not the innermost running task.
  pool_task finish(std::uint64_t id, clock::time_point now);
  // The worker began task `id` on top of one that waits (its began
  // message); throws protocol_error unless `id` is the next in flight.
  pool_task& began(std::uint64_t id, clock::time_point now);
  // Its innermost task, `id`, waits for a nested task, or no longer does;
  // throws protocol_error when `id` is not its innermost.
  void set_waiting(std::uint64_t id, bool waiting);
  // Sends a nested task's result to the task that submitted it (`id`: the
  // worker's number for it); a write that fails closes the channel, as
  // send_task's.
  void send_nested_result(std::uint64_t id, std::string_view body);
  // It will exit by itself (over its memory limit): it reads nothing more.
  void exiting_by_itself() { end(end_cause::exits_by_itself); }

  std::size_t tasks_done() const { return tasks_done_; }

 private:
  void close_channel();
  bool killed_by_pool() const { return phase_ == phase::ending && cause_ >= end_cause::killed; }
  // Enters `ending` for `why`, or, ending already, keeps the higher cause.
  void end(end_cause why);

  pid_t pid_;
  // Under in_process: the worker; declared before the channel, so that the
  // channel closes before the thread is joined.
  std::unique_ptr<in_process_worker> thread_;
  connection channel_;
  unique_fd pidfd_;
  unique_fd crash_pipe_;
  unique_fd stop_pipe_;  // the write end of the stop requests' pipe, non-blocking; made by send_hello
  unique_fd out_, err_;
  output_lines out_lines_, err_lines_;
  phase phase_ = phase::starting;
  end_cause cause_ = end_cause::retired;  // meaningful once ending
  std::deque<pool_task> in_flight_;
  std::size_t running_ = 0;  // how many of in_flight_, from its front, run
  clock::duration typical_run_{};     // of its recent tasks (a moving average); 0: none yet
  clock::time_point since_ = clock::now();  // of the current phase, or of the front task
  std::size_t tasks_sent_ = 0;
  std::size_t tasks_done_ = 0;
  std::size_t actors_ = 0;
  spare_body* spare_ = nullptr;
  clock::time_point closed_at_;  // when the connection closed
  std::string failure_;        // with end_cause::killed: the reason given
  std::string start_failure_;  // what it said when it could not start (its start_failed message)
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_WORKER_SLOT_H_
