// Copyright ferry authors. Internal: the timeline a pool records when
// pool_options::trace (or $FERRY_TRACE) names a file: every task's span on
// the worker that ran it (on the host it went to, for mpi_pool), written
// when the pool's manager ends as a Chrome trace-event file (which Perfetto
// and chrome://tracing open) and, beside it, a self-contained HTML page
// drawing the same timeline. docs/api/executor.md, "A timeline".
//
// Thread-safety: an observer, told from several threads at once; its data
// is guarded by mu_.
#ifndef FERRY_SRC_EXECUTOR_OBSERVE_TRACE_RECORDER_H_
#define FERRY_SRC_EXECUTOR_OBSERVE_TRACE_RECORDER_H_

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <executor/events.h>
#include <executor/pool_options.h>
#include "internal/export.h"
#include "internal/mutex.h"

namespace ferry::detail {

class FERRY_INTERNAL_EXPORT trace_recorder final : public pool_observer {
 public:
  // The observer a pool tells its events to: a recorder forwarding to
  // options.observer when options.trace or $FERRY_TRACE names a file (the
  // recorder is also returned in `recorder`), else options.observer. The
  // file's directory is made now (mkdir -p); where it cannot be, throws
  // ferry::error for options.trace, and for $FERRY_TRACE says so on
  // stderr and records nothing.
  static std::shared_ptr<pool_observer> for_pool(const pool_options& options,
                                                 std::shared_ptr<trace_recorder>* recorder);

  trace_recorder(std::filesystem::path json, std::shared_ptr<pool_observer> next);
  void on_task(const task_event& e) override;
  void on_worker(const worker_event& e) override;
  // Writes the trace and the page (the trace's path with the extension
  // .html). Files that cannot be written are reported on stderr, in one
  // line with the system's reason: a trace never fails the pool.
  void write() const;

  // The page for a trace already encoded as JSON (tested on its own).
  static std::string html_page(const std::string& trace_json);

 private:
  using clock = std::chrono::steady_clock;
  struct span {
    std::string row;  // "worker 1234", "host a"
    clock::time_point start, end;
    std::string name;
    std::uint32_t items = 1;
    std::uint32_t items_threw = 0;  // of `items`; a chunk that threw may have values too
    enum class how { ok, threw, failed } ended = how::ok;
    std::string error;
  };
  struct open_task {
    std::string row;
    clock::time_point start;
  };
  std::string json() const;

  const std::filesystem::path json_path_;
  const std::shared_ptr<pool_observer> next_;
  const clock::time_point origin_ = clock::now();
  mutable mutex mu_;
  std::unordered_map<std::uint64_t, open_task> open_ ABSL_GUARDED_BY(mu_);
  std::vector<span> spans_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_OBSERVE_TRACE_RECORDER_H_
