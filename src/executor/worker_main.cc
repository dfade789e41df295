// Copyright ferry authors.
//
// A worker: read the hello (environment, allowed modules, initializer), say
// ready, then run tasks until told to exit or the pool's end of the socket
// closes. A task's code may live in a module this process loads on demand.
#include "worker_main.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cereal/types/map.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "executor/process_pool.h"
#include "executor/worker.h"
#include "frame_io.h"
#include "serialize/function.h"
#include "serialize/module_policy.h"
#include "task_exception.h"

namespace ferry {
namespace detail {
namespace {

std::atomic<bool> worker_process{false};

// Refuses to let a spawned program that cannot serve run its main logic.
// Runs during the static initialization of this library, before main: it
// can only check that the executable calls serve_if_worker at all.
struct entry_point_check {
  entry_point_check() {
    if (std::getenv(worker_fd_variable) == nullptr) return;
    if (program_imports("_ZN5ferry15serve_if_workerEiPPc")) return;
    static constexpr char message[] =
        "ferry: this program was started as a pool worker (start_method::spawn), but its "
        "main() does not call ferry::serve_if_worker(argc, argv). Add that call as the first "
        "statement of main, or use start_method::fork or start_method::plugin.\n";
    [[maybe_unused]] const ssize_t n = ::write(2, message, sizeof message - 1);
    ::_exit(protocol::no_entry_point_status);
  }
} check_entry_point;

// Resident set size, from /proc/self/statm (pages).
std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

// Watches the memory of the task being run: a task that alone (its growth
// from the worker's size when it started) uses more than the limit ends the
// worker with task_memory_status. Growth across tasks is handled between
// tasks instead (the flag_retiring result).
class memory_watch {
 public:
  explicit memory_watch(std::uint64_t limit) : limit_(limit) {
    if (limit_ != 0) thread_ = std::thread([this] { watch(); });
  }
  ~memory_watch() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void task_started() {
    if (limit_ == 0) return;
    std::lock_guard lock(mu_);
    start_ = resident_bytes();
    running_ = true;
    cv_.notify_one();
  }
  void task_finished() {
    if (limit_ == 0) return;
    std::lock_guard lock(mu_);
    running_ = false;
  }

 private:
  void watch() {
    std::unique_lock lock(mu_);
    while (!stop_) {
      if (!running_) {
        cv_.wait(lock);
        continue;
      }
      cv_.wait_for(lock, std::chrono::milliseconds(10));
      if (running_ && resident_bytes() > start_ + limit_) {
        std::fflush(nullptr);
        std::_Exit(protocol::task_memory_status);
      }
    }
  }

  const std::uint64_t limit_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool running_ = false;
  bool stop_ = false;
  std::uint64_t start_ = 0;
  std::thread thread_;
};

void append_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }

int worker_loop(int fd) {
  frame_reader reader(std::size_t{1} << 32);
  std::optional<channel_auth> auth;
  std::size_t shared_memory_threshold = std::size_t{1} << 20;
  std::uint64_t memory_limit = 0;
  try {
    std::optional<frame> hello = reader.read_blocking(fd);
    if (!hello || hello->header.type != protocol::kind::hello ||
        hello->body->view().size() < protocol::key_size)
      return 2;
    auth.emplace(hello->body->view().substr(0, protocol::key_size), channel_auth::side::worker);
    reader.authenticate_with(&*auth);
    input_archive in(hello->body->view().substr(protocol::key_size));
    std::map<std::string, std::string> env;
    std::vector<std::string> allowed;
    std::uint64_t max_message = 0;
    std::uint64_t threshold = 0;
    in(env, allowed, max_message, threshold, memory_limit);
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    for (const std::string& path : allowed) allow_module(path);
    reader.set_max_body(max_message);
    shared_memory_threshold = threshold;
    function<void()> initializer;
    in(initializer);
    if (initializer) initializer();
  } catch (...) {
    try {
      auto [type, what] = describe_current_exception();
      if (auth) write_frame(fd, &*auth, protocol::kind::start_failed, 0, what.empty() ? type : what);
    } catch (...) {
    }
    return 1;
  }
  memory_watch watch(memory_limit);
  try {
    write_frame(fd, &*auth, protocol::kind::ready, 0, std::string_view());
    for (;;) {
      std::optional<frame> f = reader.read_blocking(fd);
      if (!f || f->header.type == protocol::kind::exit) return 0;
      if (f->header.type != protocol::kind::task) return 2;
      const std::uint64_t id = f->header.id;
      watch.task_started();
      std::string result = run_task(f->body->view());
      watch.task_finished();
      f.reset();  // unmap the arguments before the result is written
      const bool retiring = memory_limit != 0 && resident_bytes() > memory_limit;
      write_frame(fd, &*auth, protocol::kind::result, id, result, shared_memory_threshold,
                  retiring ? protocol::flag_retiring : 0);
      if (retiring) return 0;
    }
  } catch (const protocol_error& e) {
    std::fprintf(stderr, "ferry worker %d: %s\n", static_cast<int>(::getpid()), e.what());
    return 2;
  } catch (const authentication_failure& e) {
    // Not a task to fail: the pool's side of the socket is not the pool.
    std::fprintf(stderr, "ferry worker %d: %s\n", static_cast<int>(::getpid()), e.what());
    return protocol::authentication_status;
  }
}

[[noreturn]] void serve(int fd) {
  // Die with the pool: its manager thread started us.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  worker_process = true;
  const int status = worker_loop(fd);
  std::fflush(nullptr);
  // Not exit(): the program's static destructors belong to the pool's process.
  std::_Exit(status);
}

}  // namespace

std::string run_task(std::string_view body) {
  std::string out(message_header_room, '\0');
  std::optional<input_archive> in;
  std::shared_ptr<const callable_any> fn;
  std::uint32_t count = 0;
  try {
    in.emplace(body);
    fn = load_any_function(*in);
    const std::size_t count_at = in->offset();
    (*in)(count);
    if (fn == nullptr) throw error("ferry: the task's function is empty");
    // Each item's arguments take at least a byte, but for functions without
    // parameters; a count beyond that is a lie that would cost time and
    // memory in proportion to it.
    if (count > in->remaining() + 1)
      throw format_error(count_at, "the task announces " + std::to_string(count) +
                                       " items but has only " + std::to_string(in->remaining()) +
                                       " bytes of arguments");
  } catch (...) {
    out.push_back(1);
    output_archive whole(out);
    write_current_exception(whole, serialization_error::phase::loading_task);
    return out;
  }
  out.push_back(0);
  out.append(reinterpret_cast<const char*>(&count), 4);
  // Once an item's arguments cannot be read, the following items cannot be
  // found in the stream: they fail with the same error.
  std::string unreadable;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (!unreadable.empty()) {
      out += unreadable;
      continue;
    }
    const std::size_t length_at = out.size();
    append_u64(out, 0);
    out.push_back(0);
    call_stage stage = call_stage::reading_arguments;
    try {
      output_archive item(out);
      fn->call_serialized(*in, item, stage);
    } catch (...) {
      out.resize(length_at + 8);  // drop whatever part of the result was written
      out.push_back(1);
      output_archive item(out);
      if (stage == call_stage::calling)
        write_current_exception(item);
      else
        write_current_exception(item, stage == call_stage::reading_arguments
                                          ? serialization_error::phase::loading_task
                                          : serialization_error::phase::saving_result);
    }
    const std::uint64_t length = out.size() - length_at - 8;
    std::memcpy(out.data() + length_at, &length, 8);
    if (stage == call_stage::reading_arguments && out[length_at + 8] == 1)
      unreadable = out.substr(length_at);
  }
  return out;
}

void serve_forked(int fd) { serve(fd); }

}  // namespace detail

void serve_if_worker(int /*argc*/, char** /*argv*/) {
  const char* fd_text = std::getenv(detail::worker_fd_variable);
  if (fd_text == nullptr) return;
  const int fd = std::atoi(fd_text);
  const char* parent_text = std::getenv(detail::parent_pid_variable);
  const pid_t parent = parent_text != nullptr ? std::atoi(parent_text) : 0;
  // Children of the task's own (a subprocess of this program) are not workers.
  ::unsetenv(detail::worker_fd_variable);
  ::unsetenv(detail::parent_pid_variable);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (parent != 0 && ::getppid() != parent) std::_Exit(1);  // the pool died before we got here
  detail::serve(fd);
}

bool is_worker_process() noexcept { return detail::worker_process.load(); }

}  // namespace ferry
