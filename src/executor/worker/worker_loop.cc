// Copyright ferry authors.
#include "executor/worker/worker_loop.h"

#include <fcntl.h>
#include <malloc.h>
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
#include "executor/worker/memory_watch.h"
#include "executor/wire/connection.h"
#include "executor/pool/process_linux.h"
#include "executor/wire/protocol.h"
#include "executor/worker/run_task.h"
#include "executor/worker/task_stop.h"
#include "executor/pool/spin_policy.h"
#include <serialize/module_policy.h>
#include "executor/wire/task_exception.h"

namespace ferry::detail {
namespace {

std::atomic<bool> worker_process{false};
// This thread is a worker of its own process's pool (start_method::in_process).
thread_local bool worker_thread = false;

// The next message, polled for within the spin budget first: nullopt at a
// clean end of stream.
std::optional<message> next_message(connection& pool, spin_policy& spin) {
  const spin_policy::clock::time_point start = spin_policy::clock::now();
  std::optional<message> m;
  if (const spin_policy::clock::duration budget = spin.budget(); budget > budget.zero()) {
    const spin_policy::clock::time_point until = start + budget;
    for (;;) {
      if ((m = pool.next())) break;
      if (pool.fill(true) == message_reader::fill_result::end) return std::nullopt;
      if (spin_policy::clock::now() >= until) break;
      ::sched_yield();
    }
  }
  if (!m) m = pool.read_blocking();
  spin.waited(spin_policy::clock::now() - start);
  return m;
}

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
      for (const auto& [name, value] : config.env) ::setenv(name.c_str(), value.c_str(), 1);
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

// glibc serves a block of 32 MiB or more with its own mmap and unmaps it
// when freed: each task with a large argument or result (a 64 MiB vector)
// paid its page faults and the clearing of fresh pages again, both for
// decoding the argument and for encoding the result. Without a memory
// limit, the worker keeps such blocks in its heap for the next task
// instead; with one, it gives them back, so as not to retire for memory it
// does not use.
void keep_freed_blocks(std::uint64_t memory_limit) {
  if (memory_limit != 0) return;
  ::mallopt(M_MMAP_MAX, 0);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

// Runs one task message into its result's body, the buffers it passes in
// `passed`.
std::string run_one(const message& m, memory_watch& watch, fd_list& passed) {
  watch.task_started();
  const bool pass_buffers = (m.header.flags & protocol::flag_pass_buffers) != 0;
  std::string result = run_task(m.body->view(), m.body->attachments(), pass_buffers ? &passed : nullptr);
  watch.task_finished();
  if (passed.size() > protocol::max_attachments) {
    passed.clear();
    result = protocol::encode_whole_failure(
        {protocol::exception_kind::serialization, "ferry::error",
         "ferry: the task's result passes more than " + std::to_string(protocol::max_attachments) +
             " ferry::shared_buffer values; return fewer, or one larger buffer",
         serialization_error::phase::saving_result});
  }
  // What the task printed goes out before its result, so that the pool
  // reads it as the task's.
  std::fflush(stdout);
  std::fflush(stderr);
  return result;
}

// Says ready, then runs tasks until told to exit, the pool is gone, or the
// worker is over its memory limit.
int serve_tasks(connection& pool, served_config& config) {
  memory_watch watch(config.memory_limit);
  task_stop stop(std::move(config.stop_pipe));
  set_thread_task_stop(&stop);
  struct unset {
    ~unset() { set_thread_task_stop(nullptr); }
  } unset_at_return;
  try {
    pool.send({protocol::kind::ready});
    spin_policy waiting(config.spin);
    for (;;) {
      std::optional<message> m = next_message(pool, waiting);
      if (!m || m->header.type == protocol::kind::exit) return protocol::served_status;
      if (m->header.type != protocol::kind::task) return protocol::protocol_error_status;
      const std::uint64_t id = m->header.id;
      fd_list passed;
      stop.begin(id);
      const std::string result = run_one(*m, watch, passed);
      stop.end();
      m.reset();  // unmap the arguments before the result is written
      const bool retiring = config.memory_limit != 0 && resident_bytes() > config.memory_limit;
      pool.send({protocol::kind::result, id, result, retiring ? protocol::flag_retiring : std::uint8_t{0},
                 passed.view()});
      if (retiring) return protocol::served_status;
    }
  } catch (const protocol_error& e) {
    std::fprintf(stderr, "ferry worker %d: %s\n", static_cast<int>(::getpid()), e.what());
    return protocol::protocol_error_status;
  } catch (const authentication_failure& e) {
    // Not a task to fail: the pool's side of the socket is not the pool.
    std::fprintf(stderr, "ferry worker %d: %s\n", static_cast<int>(::getpid()), e.what());
    return protocol::authentication_status;
  }
}

}  // namespace

int worker_loop(int fd, worker_home home) {
  if (home == worker_home::pool_process) worker_thread = true;
  // Until the hello says otherwise: a body of up to 4 GiB, inline.
  connection pool(unique_fd(fd), {std::size_t{1} << 32});
  std::variant<served_config, int> greeting = greet(pool, home);
  if (const int* status = std::get_if<int>(&greeting)) return *status;
  served_config& config = std::get<served_config>(greeting);
  if (home == worker_home::own_process) keep_freed_blocks(config.memory_limit);
  return serve_tasks(pool, config);
}

void serve(int fd, int crash_fd) {
  // Die with the pool: its manager thread started us.
  die_with_parent();
  set_close_on_exec(fd);
  worker_process = true;
  if (crash_fd >= 0) {
    set_close_on_exec(crash_fd);
    install_crash_reporter(crash_fd);
  }
  // Output going to a pipe (a pool capturing it) is written a line at a
  // time, so that a line is whole when it leaves and a crash loses none.
  struct stat out {};
  if (::fstat(STDOUT_FILENO, &out) == 0 && S_ISFIFO(out.st_mode)) std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const int status = worker_loop(fd);
  std::fflush(nullptr);
  // Not exit(): the program's static destructors belong to the pool's process.
  std::_Exit(status);
}

bool serving() noexcept { return worker_process.load() || worker_thread; }

}  // namespace ferry::detail
