// Copyright ferry authors.
#include "executor/process_pool.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "cpu_quota.h"

#include "executor/worker.h"
#include "pool_core.h"
#include "serialize/internal/hmac.h"
#include "serialize/dumps.h"

namespace ferry {
namespace detail {

std::shared_ptr<future_state> submit_message(pool_core& core, std::string message,
                                             bool names_main_program) {
  return core.submit(std::move(message), names_main_program);
}

std::shared_ptr<future_state> failed_state(std::exception_ptr error) {
  auto state = std::make_shared<future_state>();
  state->fail(std::move(error));
  return state;
}

}  // namespace detail

const char* to_string(start_method method) noexcept {
  switch (method) {
    case start_method::spawn: return "spawn";
    case start_method::fork: return "fork";
    case start_method::plugin: return "plugin";
  }
  return "unknown";
}

start_method start_method_from_string(std::string_view name) {
  for (start_method m : {start_method::spawn, start_method::fork, start_method::plugin})
    if (name == to_string(m)) return m;
  throw std::invalid_argument("ferry: unknown start method '" + std::string(name) +
                              "'; the valid names are spawn, fork and plugin");
}

start_method start_method_from_env(start_method fallback) {
  const char* name = std::getenv("FERRY_START_METHOD");
  return name == nullptr || *name == '\0' ? fallback : start_method_from_string(name);
}

std::size_t cpu_count() noexcept {
  std::size_t n = 1;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    n = static_cast<std::size_t>(CPU_COUNT(&set));
  if (const std::optional<std::size_t> quota = detail::cgroup_cpu_quota()) n = std::min(n, *quota);
  return std::max<std::size_t>(n, 1);
}

process_pool::process_pool(pool_options options)
    : core_(std::make_shared<detail::pool_core>(std::move(options))) {}
process_pool::~process_pool() = default;
process_pool::process_pool(const process_pool&) = default;
process_pool& process_pool::operator=(const process_pool&) = default;
process_pool::process_pool(process_pool&&) noexcept = default;
process_pool& process_pool::operator=(process_pool&&) noexcept = default;

void process_pool::shutdown(bool wait, bool cancel_pending, bool kill_running) {
  core_->shutdown(wait, cancel_pending, kill_running);
}
bool process_pool::is_shutdown() const { return core_->is_shutdown(); }
std::size_t process_pool::max_workers() const { return core_->max_workers(); }
void process_pool::resize(std::size_t max_workers) { core_->resize(max_workers); }
std::vector<int> process_pool::worker_pids() const { return core_->worker_pids(); }
const pool_options& process_pool::options() const { return core_->options(); }

namespace {

// Whether a pool made with `a` can serve as one made with `b`, but for
// max_workers.
bool same_but_size(const pool_options& a, const pool_options& b) {
  return a.start == b.start && a.idle_timeout == b.idle_timeout &&
         a.max_tasks_per_worker == b.max_tasks_per_worker && a.task_timeout == b.task_timeout &&
         a.env == b.env && a.max_message_size == b.max_message_size &&
         a.shared_memory_threshold == b.shared_memory_threshold &&
         a.max_worker_memory == b.max_worker_memory &&
         a.worker_program == b.worker_program &&
         dumps(a.initializer) == dumps(b.initializer);
}

struct reusable {
  std::mutex mu;
  std::optional<process_pool> pool;
};

reusable& the_reusable() {
  static auto* r = [] {
    auto* made = new reusable;
    // Stop its workers before the process's static objects go away, and
    // before OpenSSL, which its messages need, is torn down.
    detail::initialize_crypto();
    std::atexit([] {
      // A task that calls exit() runs this in a forked worker, which has a
      // copy of the pool but not its threads: leave it alone there.
      if (is_worker_process()) return;
      std::optional<process_pool> last;
      {
        std::lock_guard lock(the_reusable().mu);
        last.swap(the_reusable().pool);
      }
      if (last) last->shutdown(true, true);
    });
    return made;
  }();
  return *r;
}

}  // namespace

process_pool get_reusable_executor(const pool_options& options) {
  reusable& r = the_reusable();
  std::lock_guard lock(r.mu);
  if (r.pool && !r.pool->is_shutdown() && same_but_size(r.pool->options(), options)) {
    const std::size_t wanted = options.max_workers != 0 ? options.max_workers : cpu_count();
    if (r.pool->max_workers() != wanted) r.pool->resize(wanted);
    return *r.pool;
  }
  // Handles to the previous pool keep it working; it shuts down, finishing
  // its work, when the last of them is released.
  r.pool.emplace(options);
  return *r.pool;
}

}  // namespace ferry
