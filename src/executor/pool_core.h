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
// the flags under mu_.
#ifndef FERRY_SRC_EXECUTOR_POOL_CORE_H_
#define FERRY_SRC_EXECUTOR_POOL_CORE_H_

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

#include "executor/future.h"
#include "executor/pool_options.h"
#include "frame_io.h"

namespace ferry::detail {

class pool_core {
 public:
  explicit pool_core(pool_options options);
  ~pool_core();  // shutdown(true, false, false)

  std::shared_ptr<future_state> submit(std::string message, bool names_main_program);
  void shutdown(bool wait, bool cancel_pending, bool kill_running);
  bool is_shutdown() const;
  void resize(std::size_t max_workers);
  std::size_t max_workers() const;
  std::vector<int> worker_pids() const;
  const pool_options& options() const { return options_; }

 private:
  using clock = std::chrono::steady_clock;

  struct task {
    std::uint64_t id;
    std::string message;
    std::shared_ptr<future_state> state;
    bool started = false;  // state->start() done: requeued after its worker died unstarted
  };

  struct worker {
    enum class phase { starting, idle, busy, retiring };
    pid_t pid;
    int socket;
    int pidfd;
    channel_auth auth;
    frame_reader reader;
    phase state = phase::starting;
    // Sent and not answered, in order: the front one is running, the others
    // wait in the socket (pipelining, see dispatch).
    std::deque<task> in_flight;
    clock::time_point since = clock::now();  // of the current phase, or of the front task
    std::size_t tasks_sent = 0;
    std::size_t tasks_done = 0;
    bool socket_closed = false;
    bool timed_out = false;
    bool stopped_by_shutdown = false;
    std::string failure;        // why the pool killed it
    std::string start_failure;  // why it could not start (its start_failed message)

    worker(pid_t p, int s, int f, std::string_view key, std::size_t max_body)
        : pid(p), socket(s), pidfd(f), auth(key, channel_auth::side::pool), reader(max_body) {
      reader.authenticate_with(&auth);
    }
  };

  void run();    // the manager thread
  void serve();  // its loop, until shut down and drained
  void wake();
  void start_worker();
  void dispatch();
  void send_task(worker& w, task& t);
  void requeue(std::deque<task>& tasks);
  void on_readable(worker& w);
  void on_exit(worker& w);
  void retire(worker& w);
  void kill_worker(worker& w, std::string why);
  void enforce_timers(clock::time_point now);
  int poll_timeout_ms(clock::time_point now) const;
  void publish_pids();
  void fail_pending(std::exception_ptr error);
  bool finished_shutting_down();
  void stop_all_workers();
  std::string hello_message() const;

  const pool_options options_;
  const std::string program_;  // for spawn and plugin
  const std::string key_;      // authenticates every message after the hello

  mutable std::mutex mu_;
  std::deque<task> pending_;
  std::size_t max_workers_;
  bool shutdown_ = false;
  bool kill_running_ = false;
  std::uint64_t next_id_ = 1;
  std::vector<int> pids_;

  int wake_fd_;
  std::vector<std::unique_ptr<worker>> workers_;  // manager thread only
  clock::time_point start_retry_at_;              // manager thread only
  std::mutex join_mu_;
  std::thread manager_;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_CORE_H_
