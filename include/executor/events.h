// Copyright ferry authors.
//
// ferry::pool_observer: what a pool tells about its tasks and workers as
// they happen, for logs, metrics, progress displays and timelines. Set
// pool_options::observer (on mpi_pool: mpi_pool_options::local.observer,
// called on rank 0); nothing is made or called when it is unset.
//
//   struct counter : ferry::pool_observer {
//     std::atomic<int> failed{0};
//     void on_task(const ferry::task_event& e) override {
//       if (e.what == ferry::task_event::kind::failed) ++failed;
//     }
//   };
//   auto seen = std::make_shared<counter>();
//   ferry::process_pool pool({.observer = seen});
//
// Thread-safety: the calls come from several threads (the submitting
// threads, the pool's manager thread, a thread waiting for a future of the
// pool, ferry's continuation thread), at once; an observer synchronizes
// itself. A call holds up the thread making
// it: keep it short, and do not call the pool from it.
#ifndef FERRY_EXECUTOR_EVENTS_H_
#define FERRY_EXECUTOR_EVENTS_H_

#include <chrono>
#include <cstdint>
#include <string_view>

namespace ferry {

struct task_event {
  enum class kind {
    submitted,  // queued by submit or a map (on the submitting thread)
    started,    // a worker began it (mpi_pool: it was sent to its host)
    finished,   // its result arrived: a value, or an exception the task threw
    failed,     // it ended without a result: its worker died, its timeout passed
    retried,    // it failed and task_options::retries sends it again
  };
  kind what = kind::submitted;
  // The pool's number for this attempt; an attempt sent again is a new
  // task with a number of its own (0 in the retried event itself).
  std::uint64_t task = 0;
  std::uint32_t items = 1;     // inputs it carries: a map's chunk has several
  std::string_view name{};     // task_options::name, if any
  int worker = 0;              // started, finished, failed: the worker's pid (0: none, or mpi_pool)
  std::string_view host{};     // mpi_pool: the host it went to; empty on process_pool
  std::chrono::steady_clock::time_point at{};
  std::chrono::nanoseconds duration{};  // finished, failed: since it started (0 if it never did)
  // finished: the task threw; for a map's chunk, at least one of its
  // inputs did, and `items_threw` says how many of its `items` (the rest
  // have values). A task of one input that threw has items_threw 1.
  bool threw = false;
  std::uint32_t items_threw = 0;
  std::string_view error{};    // failed, retried: what the error says
};

struct worker_event {
  enum class kind {
    started,   // ready for tasks
    exited,    // gone, whatever the reason (`why`)
    recycled,  // asked to exit after a task (max_tasks_per_worker, max_worker_memory), then replaced
  };
  kind what = kind::started;
  int pid = 0;
  std::string_view host{};  // empty on process_pool
  std::chrono::steady_clock::time_point at{};
  std::string_view why{};   // exited, recycled
};

// A line a worker wrote on its stdout or stderr, captured by the pool
// (pool_options::worker_output, on_output).
struct output_line {
  int worker = 0;
  std::string_view host{};     // mpi_pool; empty on process_pool
  int stream = 1;              // 1: stdout, 2: stderr
  std::uint64_t task = 0;      // the task the worker was running when it wrote it; 0: none
  std::string_view name{};     // that task's task_options::name, if any
  std::string_view text{};     // without its newline
};

// Where a pool's workers' stdout and stderr go.
enum class output_mode {
  inherit,  // the pool's own, as the workers write them (the default)
  prefix,   // captured, and written to the pool's stdout and stderr a whole line at a time,
            // each after "[worker PID task N] " ("[host H worker PID task N] " on mpi_pool)
};

class pool_observer {
 public:
  virtual ~pool_observer() = default;
  virtual void on_task(const task_event&) {}
  virtual void on_worker(const worker_event&) {}
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_EVENTS_H_
