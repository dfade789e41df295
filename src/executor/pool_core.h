// Copyright ferry authors. Internal: the pool's shared state and its manager
// thread.
//
//   submit() ──▶ pending queue ──▶ manager thread ──▶ worker sockets ──▶ workers
//   (caller       (mutex)          poll(): wake-up     a task per worker,  run their
//    serializes)                   eventfd, sockets,   and one more queued tasks in
//                                  pidfds, timers      when all are busy   order
//   future ◀── future_state ◀──── manager reads results, reaps exits,
//                                  starts and retires workers
//
// Only the manager thread touches workers; user threads touch the queue and
// the flags under mu_. The manager is a thread of the pool's own, or, for
// a pool made with driver::caller, the thread that made it, through turn().
#ifndef FERRY_SRC_EXECUTOR_POOL_CORE_H_
#define FERRY_SRC_EXECUTOR_POOL_CORE_H_

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "executor/internal/future_state.h"
#include "executor/pool_options.h"
#include "executor/shutdown_options.h"
#include "executor/internal/submit.h"
#include "message_io.h"
#include "protocol.h"
#include "submit_encoding.h"
#include "task_intake.h"

namespace ferry::detail {

// Exported for the MPI node agent (src/mpi/agent.cc), which runs one.
class FERRY_EXPORT pool_core final : public task_queue {
 public:
  // Throws ferry::error inside a worker process, ferry::worker_start_error
  // when the plugin worker program cannot be executed.
  // `initializer_record`: options.initializer already encoded
  // (protocol::encode_initializer), for an MPI agent, whose options carry
  // none; empty: encoded here.
  // Who runs the manager loop: a thread of the pool's own (process_pool),
  // or the thread that made the pool, calling turn() (an MPI agent, whose
  // one thread also serves MPI, so that a worker's answer reaches it with
  // no thread in between). A caller-driven pool is used from that thread
  // alone.
  enum class driver { own_thread, caller };
  explicit pool_core(pool_options options, std::string initializer_record = {},
                     driver d = driver::own_thread);
  ~pool_core() override;  // shutdown({}): waits for the queue to drain

  std::shared_ptr<future_state> submit_task(const task_writer& task, std::uint32_t count) override;
  // Queues an encoded task; fails the returned state instead when no worker
  // of this pool could run it. Throws ferry::pool_shutdown_error after
  // shutdown.
  std::shared_ptr<future_state> submit(protocol::encoded_task task);
  // With how.wait, a caller-driven pool turns until it is drained.
  void shutdown(shutdown_options how) override;
  // driver::caller only: one pass of the manager loop. Sends queued tasks,
  // waits up to `timeout` (less when a timer is due) for a worker's message
  // or exit, handles what came and enforces the timers; futures finish, and
  // their on_done callbacks run, inside this call. Returns false once the
  // pool is shut down and drained and its workers are stopped.
  bool turn(std::chrono::microseconds timeout);
  // driver::caller only: starts workers up to max_workers now, instead of
  // as tasks come (an MPI agent, whose pool exists to serve). A start that
  // fails is handled as one for a task would be.
  void start_workers();
  bool is_shutdown() const override;
  void resize(std::size_t max_workers);
  std::size_t max_workers() const;
  std::vector<int> worker_pids() const;
  const pool_options& options() const { return options_; }

 private:
  using clock = std::chrono::steady_clock;

  struct task {
    std::uint64_t id;
    std::string body;  // kept until the task runs, while it may be sent elsewhere
    std::shared_ptr<future_state> state;
    bool started = false;  // state->start() done: requeued after its worker died unstarted
  };

  struct worker {
    enum class phase { starting, idle, busy, retiring };
    pid_t pid;
    int socket;
    int pidfd;
    channel_auth auth;
    message_reader reader;
    phase state = phase::starting;
    // Sent and not answered, in order: the front one is running, the others
    // wait in the socket (pipelining, see dispatch).
    std::deque<task> in_flight;
    clock::time_point since = clock::now();  // of the current phase, or of the front task
    std::size_t tasks_sent = 0;
    std::size_t tasks_done = 0;
    bool socket_closed = false;
    clock::time_point closed_at;  // when socket_closed became true
    bool timed_out = false;
    bool stopped_by_shutdown = false;
    std::string failure;        // why the pool killed it
    std::string start_failure;  // why it could not start (its start_failed message)

    bool alive() const { return state != phase::retiring; }
    bool ready() const { return state == phase::idle || state == phase::busy; }

    worker(pid_t p, int s, int f, std::string_view key, std::size_t max_body)
        : pid(p), socket(s), pidfd(f), auth(key, channel_auth::side::pool), reader(max_body) {
      reader.authenticate_with(&auth);
    }
  };

  // A pass of the manager loop, waiting at most `most` (nullopt: until a
  // timer is due); false once shut down and drained, or after a failure,
  // with the workers then stopped.
  bool pass(std::optional<clock::duration> most);
  bool serve_once(std::optional<clock::duration> most);
  void fail_everything(std::exception_ptr error);
  void wake();
  void start_worker();
  // A start failed (`message` says why); fails the queue with a
  // worker_start_error only when starting is hopeless: `lasting` (it will
  // not pass by itself), or starts have failed for start_timeout, and no
  // worker is ready to serve meanwhile. Otherwise schedules the next try.
  void start_failed(const std::string& message, bool lasting);
  std::size_t live_workers() const;
  bool any_ready_worker() const;
  void dispatch();
  void send_task(worker& w, task& t);
  void requeue(std::deque<task>& tasks);
  void on_readable(worker& w);
  void on_exit(worker& w);
  void retire(worker& w);
  void kill_worker(worker& w, std::string why);
  void enforce_timers(clock::time_point now);
  std::optional<clock::time_point> next_timer(clock::time_point now) const;
  void publish_pids();
  void fail_pending(std::exception_ptr error);
  bool finished_shutting_down();
  void stop_all_workers();
  std::string hello_body() const;

  const pool_options options_;
  const driver driver_;
  const std::string program_;  // for spawn and plugin
  const std::string key_;      // authenticates every message after the hello
  // The initializer as every hello carries it; encoded by the first hello.
  // The manager thread's.
  mutable std::string initializer_;

  mutable std::mutex mu_;
  task_intake<task> intake_;
  std::size_t max_workers_;
  std::vector<int> pids_;

  int wake_fd_;
  // The manager thread's alone:
  std::vector<std::unique_ptr<worker>> workers_;
  clock::time_point start_retry_at_;
  std::size_t failed_starts_ = 0;  // in a row, since a worker last became ready
  clock::time_point failing_since_;
  std::vector<pollfd> fds_;  // of the current pass
  bool stopped_ = false;     // the loop ended and the workers were stopped
  std::mutex join_mu_;
  std::thread manager_;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_CORE_H_
