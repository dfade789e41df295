// Copyright ferry authors.
#include "executor/pool/launcher.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "executor/pool/process_linux.h"
#include "executor/wire/protocol.h"
#include "executor/worker/worker_loop.h"
#include "internal/unique_fd.h"

extern char** environ;

namespace ferry::detail {
namespace {

[[noreturn]] void fail(const std::string& what) {
  // A program that cannot be run stays so; being out of processes, memory
  // or descriptors may pass.
  const int err = errno;
  const bool lasting = err == ENOENT || err == EACCES || err == ENOEXEC || err == ENOTDIR || err == ELOOP ||
                       err == ENAMETOOLONG;
  throw launch_error("ferry: cannot start a worker: " + what + ": " + std::strerror(err) + descriptor_shortage(err),
                     lasting);
}

// Whether an environment entry "NAME=value" sets the variable `name`.
bool sets(std::string_view entry, std::string_view name) {
  return entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=';
}

// A worker's whole environment, built before fork or spawn: this
// process's entries less those `env` unsets or sets, then `env`'s and
// `extra`'s ("NAME=value"; they replace inherited ones of their names).
// get() is the null-terminated array that posix_spawn's envp or a forked
// child's environ takes. A forked child must not call setenv: another
// thread may hold its lock at fork(), never released in the child; and
// its allocations there may sort free blocks all over the heap copied from
// this process, copying each page they touch (up to 1 300 pages and tens
// of ms per start, seen under a kill storm with 40 000 tasks queued).
class environment_block {
 public:
  environment_block(const worker_environment& env, std::vector<std::string> extra) {
    const auto replaced = [&](std::string_view name) {
      if (env.set.count(std::string(name)) != 0) return true;
      for (const std::string& e : extra)
        if (sets(e, name)) return true;
      return false;
    };
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string_view entry(*e);
      if (!is_unset(entry, env.unset) && !replaced(entry.substr(0, entry.find('='))))
        entries_.emplace_back(entry);
    }
    for (const auto& [name, value] : env.set) entries_.push_back(name + "=" + value);
    for (std::string& e : extra) entries_.push_back(std::move(e));
    for (std::string& e : entries_) pointers_.push_back(e.data());
    pointers_.push_back(nullptr);
  }
  environment_block(const environment_block&) = delete;  // get() points into it
  environment_block& operator=(const environment_block&) = delete;
  char** get() { return pointers_.data(); }

 private:
  std::vector<std::string> entries_;
  std::vector<char*> pointers_;  // into entries_, whose strings do not move once built
};

// The worker's ends, each above highest_fixed_fd (lift_above_fixed): one
// dup2 each onto its fixed number cannot overwrite another. -1: none.
struct child_ends {
  int tasks, results, crash, in, out, err;
};

pid_t spawn_program(const std::string& program, const child_ends& ends, const worker_environment& env) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // First: the directory's descriptor may have a number that a dup2 below
  // gives another end.
  if (env.directory >= 0) posix_spawn_file_actions_addfchdir_np(&actions, env.directory);
  for (const auto& [fd, target] :
       {std::pair{ends.tasks, protocol::worker_fd}, std::pair{ends.results, protocol::results_fd},
        std::pair{ends.crash, protocol::crash_fd}, std::pair{ends.in, STDIN_FILENO},
        std::pair{ends.out, STDOUT_FILENO}, std::pair{ends.err, STDERR_FILENO}})
    if (fd >= 0) posix_spawn_file_actions_adddup2(&actions, fd, target);
  environment_block envp(env, {std::string(protocol::worker_fd_variable) + "=" + std::to_string(protocol::worker_fd),
                               std::string(protocol::results_fd_variable) + "=" + std::to_string(protocol::results_fd),
                               std::string(protocol::parent_pid_variable) + "=" + std::to_string(::getpid()),
                               std::string(protocol::crash_fd_variable) + "=" + std::to_string(protocol::crash_fd)});
  std::string arg0 = program;
  std::string arg1 = "--ferry-worker";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  // SIGCHLD's default action in the worker, though the pool's process may
  // ignore it (an ignored signal stays ignored across exec): a task then
  // waits for its own children as in any process.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t to_default;
  sigemptyset(&to_default);
  sigaddset(&to_default, SIGCHLD);
  posix_spawnattr_setsigdefault(&attributes, &to_default);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attributes, argv, envp.get());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    errno = rc;
    fail("posix_spawn of '" + program + "'");
  }
  return pid;
}

}  // namespace

bool is_unset(std::string_view entry, const std::vector<std::string>& unset_env) {
  const std::string_view name = entry.substr(0, entry.find('='));
  for (const std::string& pattern : unset_env) {
    if (!pattern.empty() && pattern.back() == '*') {
      if (name.starts_with(std::string_view(pattern).substr(0, pattern.size() - 1))) return true;
    } else if (name == pattern) {
      return true;
    }
  }
  return false;
}

launch_error::launch_error(const std::string& message, bool lasting)
    : worker_start_error(message), lasting_(lasting) {}
launch_error::~launch_error() = default;

namespace {

// A socket pair or pipe, close-on-exec, each end owned; throws launch_error.
fd_pair socket_pair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) fail("socketpair");
  return {unique_fd(fds[0]), unique_fd(fds[1])};
}
fd_pair pipe_pair() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail("pipe2");
  return {unique_fd(fds[0]), unique_fd(fds[1])};
}

// The highest descriptor number a worker is handed anything at: stdio and
// protocol.h's.
constexpr int highest_fixed_fd = std::max({STDERR_FILENO, protocol::worker_fd, protocol::results_fd, protocol::crash_fd});

// Moves a worker's end above highest_fixed_fd. Where the program runs with
// stdin, stdout or stderr closed, a socket or pipe can get one of the
// fixed numbers, and the dup2 that puts another end there would close it
// before it is moved. Throws launch_error.
void lift_above_fixed(unique_fd& fd) {
  if (!fd || fd.get() > highest_fixed_fd) return;
  const int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, highest_fixed_fd + 1);
  if (moved < 0) fail("fcntl(F_DUPFD_CLOEXEC)");
  fd = unique_fd(moved);
}

// /dev/null for a worker's stdin, as Python's multiprocessing gives its
// children: a task that reads stdin finds its end at once instead of
// taking the program's input. None if it cannot be opened (the worker then
// shares the program's stdin).
unique_fd null_input() { return unique_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC)); }

void set_non_blocking(const unique_fd& fd) { ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_NONBLOCK); }

// A thread of this process serving the worker's ends of `tasks` and `results`.
launched_worker launch_in_process(fd_pair tasks, fd_pair results) {
  set_non_blocking(tasks.first);
  set_non_blocking(results.first);
  launched_worker l;
  try {
    l.thread = std::make_unique<in_process_worker>(std::move(tasks.second), std::move(results.second));
  } catch (const std::system_error& e) {
    errno = e.code().value();
    fail("a thread");
  }
  l.pid = l.thread->tid();
  l.results = std::move(results.first);
  l.tasks = std::move(tasks.first);
  l.pidfd = l.thread->take_exit_fd();
  set_non_blocking(l.pidfd);
  return l;
}

}  // namespace

launched_worker launch_worker(start_method method, const std::string& program,
                              const worker_environment& env, const std::vector<int>& close_in_child,
                              bool capture_output) {
  // first: the pool's end; second: the worker's. Whatever throws below
  // closes them all.
  fd_pair tasks = socket_pair(), results = socket_pair();
  if (method == start_method::in_process) return launch_in_process(std::move(tasks), std::move(results));
  fd_pair crash = pipe_pair(), out, err;
  if (capture_output) {
    out = pipe_pair();
    err = pipe_pair();
  }
  unique_fd in = null_input();
  for (unique_fd* end : {&tasks.second, &results.second, &crash.second, &out.second, &err.second, &in})
    lift_above_fixed(*end);
  pid_t pid = 0;
  if (method == start_method::fork) {
    environment_block child_env(env, {});
    // Unwritten stdio output would otherwise be written twice: once by this
    // process, once by the child when it exits.
    std::fflush(nullptr);
    pid = ::fork();
    if (pid < 0) fail("fork");
    if (pid == 0) {
      // As for a spawned worker; and a handler of the pool's process for
      // SIGCHLD must not reap the children of this worker's tasks.
      ::signal(SIGCHLD, SIG_DFL);
      // Where the directory cannot be entered, it stays where the pool's
      // process is (a spawned one fails to start instead).
      if (env.directory >= 0) (void)!::fchdir(env.directory);
      if (in) ::dup2(in.get(), STDIN_FILENO);
      in.reset();
      if (capture_output) {
        ::dup2(out.second.get(), STDOUT_FILENO);
        ::dup2(err.second.get(), STDERR_FILENO);
        for (fd_pair* p : {&out, &err}) {
          p->first.reset();
          p->second.reset();
        }
      }
      tasks.first.reset();
      results.first.reset();
      crash.first.reset();
      for (int fd : close_in_child) ::close(fd);
      environ = child_env.get();
      serve(tasks.second.get(), results.second.get(), crash.second.get());
    }
  } else {
    pid = spawn_program(program,
                        {tasks.second.get(), results.second.get(), crash.second.get(), in.get(), out.second.get(),
                         err.second.get()},
                        env);
  }
  for (fd_pair* p : {&tasks, &results, &crash, &out, &err}) p->second.reset();  // the worker's now
  in.reset();
  unique_fd pidfd(open_exit_fd(pid, crash.first.get()));
  if (!pidfd) {
    const int e = errno;
    ::kill(pid, SIGKILL);
    reap_child(pid, -1);  // no zombie left behind
    errno = e;
    fail("pidfd_open");  // or, without it, dup of the crash pipe
  }
  for (fd_pair* p : {&tasks, &results, &crash, &out, &err})
    if (p->first) set_non_blocking(p->first);
  return {pid, std::move(results.first), std::move(tasks.first), std::move(pidfd), std::move(crash.first),
          std::move(out.first), std::move(err.first), nullptr};
}

std::string default_worker_program() {
  if (const char* env = std::getenv("FERRY_WORKER")) return env;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&default_worker_program), &info) != 0 &&
      info.dli_fname != nullptr) {
    const std::filesystem::path libdir = std::filesystem::path(info.dli_fname).parent_path();
    // The build tree keeps it beside the library; an installation in libexec.
    for (const std::filesystem::path& candidate :
         {libdir / "ferry-worker", libdir / FERRY_WORKER_FROM_LIBDIR}) {
      if (::faccessat(AT_FDCWD, candidate.c_str(), X_OK, AT_EACCESS) == 0)
        return candidate.lexically_normal().string();
    }
  }
  return "ferry-worker";
}

}  // namespace ferry::detail
