// Copyright ferry authors.
#include "executor/worker/worker_loop.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <variant>

#include "executor/pool/crash_report.h"
#include "executor/worker/inner_threads.h"
#include "executor/worker/kept_heap.h"
#include "executor/worker/task_server.h"
#include "executor/wire/connection.h"
#include "executor/pool/process_linux.h"
#include "executor/wire/protocol.h"
#include "executor/worker/task_stop.h"
#include <serialize/module_policy.h>
#include "executor/wire/task_exception.h"

namespace ferry::detail {
namespace {

std::atomic<bool> worker_process{false};
// This thread is a worker of its own process's pool (start_method::in_process).
thread_local bool worker_thread = false;

// What the hello set for the tasks to come.
struct served_config {
  std::uint64_t memory_limit = 0;  // pool_options::max_worker_memory; 0: none
  std::chrono::microseconds spin{0};
  unique_fd stop_pipe;  // where the pool asks a running task to stop (task_stop.h); may be none
};

// Reads the pool's hello and applies it: the channel's key, the
// environment, the module policy, the limits, the initializer. The exit
// status to end with if that fails.
std::variant<served_config, int> greet(connection& pool, worker_home home) {
  std::optional<message> hello;
  std::optional<protocol::hello_reader> in;
  try {
    hello = pool.read_blocking();
    if (!hello || hello->header.type != protocol::kind::hello) return protocol::protocol_error_status;
    in.emplace(hello->body->view());
  } catch (...) {
    return protocol::protocol_error_status;  // not a pool on the other side: nobody to tell
  }
  bool authenticated = false;
  try {
    pool.authenticate(in->key(), channel_auth::side::worker);
    authenticated = true;
    const protocol::worker_config& config = in->config();
    const bool own = home == worker_home::own_process;
    if (own) {
      // The launch gave this process these variables already; setenv only
      // for one it did not: in a forked worker, setenv may wait forever for
      // a lock another thread of the pool's process held at fork().
      for (const auto& [name, value] : config.env) {
        const char* now = std::getenv(name.c_str());
        if (now == nullptr || value != now) ::setenv(name.c_str(), value.c_str(), 1);
      }
      apply_inner_thread_counts(config.env);
      apply_module_policy(config.policy, policy_host::same);
    }
    served_config served{own ? config.max_worker_memory : 0,
                         std::chrono::microseconds(static_cast<std::int64_t>(
                             std::min<std::uint64_t>(config.spin_us, 1'000'000))),
                         {}};
    const std::span<const int> passed = hello->body->attachments();
    if (!passed.empty()) served.stop_pipe = unique_fd(::fcntl(passed.front(), F_DUPFD_CLOEXEC, 0));
    // Large results go through files reused from task to task, except under
    // a memory limit, where the mappings kept would count against it.
    pool.configure({config.max_message_size, config.shared_memory_threshold, served.memory_limit == 0});
    if (function<void()> initializer = in->initializer()) initializer();
    return served;
  } catch (...) {
    try {
      auto [type, what] = describe_current_exception();
      if (authenticated) pool.send({protocol::kind::start_failed, 0, what.empty() ? type : what});
    } catch (...) {
    }
    return protocol::start_failed_status;
  }
}

}  // namespace

int worker_loop(int fd, int results_fd, worker_home home) {
  if (home == worker_home::pool_process) worker_thread = true;
  // Until the hello says otherwise: a body of up to 4 GiB, inline.
  // results_fd -1: an empty out, so fd carries both ways.
  connection pool(unique_fd(fd), unique_fd(results_fd), {std::size_t{1} << 32});
  std::variant<served_config, int> greeting = greet(pool, home);
  if (const int* status = std::get_if<int>(&greeting)) return *status;
  served_config& config = std::get<served_config>(greeting);
  std::optional<kept_heap> heap;
  if (home == worker_home::own_process && config.memory_limit == 0) heap.emplace();
  task_stop stop(std::move(config.stop_pipe));
  task_server server(pool, {config.memory_limit, config.spin, heap ? &*heap : nullptr}, stop);
  return server.serve();
}

void serve(int fd, int results_fd, int crash_fd) {
  // Die with the pool: its manager thread started us; leave Ctrl-C to the
  // pool's program; and block no signal, whatever that thread blocked.
  die_with_parent();
  outlive_terminal_interrupt();
  unblock_all_signals();
  set_close_on_exec(fd);
  if (results_fd >= 0) set_close_on_exec(results_fd);
  worker_process = true;
  if (crash_fd >= 0) {
    set_close_on_exec(crash_fd);
    install_crash_reporter(crash_fd);
  }
  // Output going to a pipe (a pool capturing it) is written a line at a
  // time, so that a line is whole when it leaves and a crash loses none.
  struct stat out {};
  if (::fstat(STDOUT_FILENO, &out) == 0 && S_ISFIFO(out.st_mode)) std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const int status = worker_loop(fd, results_fd);
  std::fflush(nullptr);
  // Not exit(): the program's static destructors belong to the pool's process.
  std::_Exit(status);
}

bool serving() noexcept { return worker_process.load() || worker_thread; }

}  // namespace ferry::detail
