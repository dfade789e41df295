// Copyright ferry authors.
#include "executor/worker/worker_loop.h"

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
#include <string>

#include "executor/pool/crash_report.h"
#include "executor/worker/memory_watch.h"
#include "executor/wire/message_io.h"
#include "executor/pool/process_linux.h"
#include "executor/wire/protocol.h"
#include "executor/worker/run_task.h"
#include "executor/pool/spin_policy.h"
#include <serialize/module_policy.h>
#include "executor/wire/task_exception.h"

namespace ferry::detail {
namespace {

std::atomic<bool> worker_process{false};

// The next message, polled for within the spin budget first: nullopt at a
// clean end of stream.
std::optional<message> next_message(message_reader& reader, int fd, spin_policy& spin) {
  const spin_policy::clock::time_point start = spin_policy::clock::now();
  std::optional<message> m;
  if (const spin_policy::clock::duration budget = spin.budget(); budget > budget.zero()) {
    const spin_policy::clock::time_point until = start + budget;
    for (;;) {
      if ((m = reader.next())) break;
      if (reader.fill(fd, true) == message_reader::fill_result::end) return std::nullopt;
      if (spin_policy::clock::now() >= until) break;
      ::sched_yield();
    }
  }
  if (!m) m = reader.read_blocking(fd);
  spin.waited(spin_policy::clock::now() - start);
  return m;
}

}  // namespace

int worker_loop(int fd) {
  message_reader reader(std::size_t{1} << 32);
  std::optional<channel_auth> auth;
  std::uint64_t shared_memory_threshold = 0;
  std::uint64_t memory_limit = 0;
  std::chrono::microseconds spin{0};
  std::optional<message> hello;
  std::optional<protocol::hello_reader> in;
  try {
    hello = reader.read_blocking(fd);
    if (!hello || hello->header.type != protocol::kind::hello) return protocol::protocol_error_status;
    in.emplace(hello->body->view());
  } catch (...) {
    return protocol::protocol_error_status;  // not a pool on the other side: nobody to tell
  }
  try {
    auth.emplace(in->key(), channel_auth::side::worker);
    reader.authenticate_with(&*auth);
    const protocol::worker_config& config = in->config();
    for (const auto& [name, value] : config.env) ::setenv(name.c_str(), value.c_str(), 1);
    apply_module_policy(config.policy, policy_host::same);
    reader.set_max_body(config.max_message_size);
    shared_memory_threshold = config.shared_memory_threshold;
    memory_limit = config.max_worker_memory;
    spin = std::chrono::microseconds(static_cast<std::int64_t>(std::min<std::uint64_t>(config.spin_us, 1'000'000)));
    if (function<void()> initializer = in->initializer()) initializer();
  } catch (...) {
    try {
      auto [type, what] = describe_current_exception();
      if (auth) write_message(fd, &*auth, protocol::kind::start_failed, 0, what.empty() ? type : what);
    } catch (...) {
    }
    return protocol::start_failed_status;
  }
  in.reset();
  hello.reset();
  // glibc serves a block of 32 MiB or more with its own mmap and unmaps it
  // when freed: each task with a large argument or result (a 64 MiB vector)
  // paid its page faults and the clearing of fresh pages again, both for
  // decoding the argument and for encoding the result. Without a memory
  // limit, the worker keeps such blocks in its heap for the next task
  // instead; with one, it gives them back, so as not to retire for memory
  // it does not use.
  if (memory_limit == 0) {
    ::mallopt(M_MMAP_MAX, 0);
    ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
  memory_watch watch(memory_limit);
  // Large results go through files reused from task to task, except under a
  // memory limit, where the mappings kept would count against it.
  std::optional<reusable_buffers> reuse;
  if (memory_limit == 0) reuse.emplace();
  try {
    write_message(fd, &*auth, protocol::kind::ready, 0, {});
    spin_policy waiting(spin);
    for (;;) {
      std::optional<message> m = next_message(reader, fd, waiting);
      if (!m || m->header.type == protocol::kind::exit) return protocol::served_status;
      if (m->header.type != protocol::kind::task) return protocol::protocol_error_status;
      const std::uint64_t id = m->header.id;
      watch.task_started();
      fd_list passed;
      const bool pass_buffers = (m->header.flags & protocol::flag_pass_buffers) != 0;
      std::string result = run_task(m->body->view(), m->body->attachments(),
                                    pass_buffers ? &passed : nullptr);
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
      m.reset();  // unmap the arguments before the result is written
      const bool retiring = memory_limit != 0 && resident_bytes() > memory_limit;
      write_message(fd, &*auth, protocol::kind::result, id, result, shared_memory_threshold,
                    retiring ? protocol::flag_retiring : 0, passed.view(), reuse ? &*reuse : nullptr);
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

bool serving() noexcept { return worker_process.load(); }

}  // namespace ferry::detail
