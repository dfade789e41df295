// Copyright ferry authors.
#include "mpi/modules_dir_linux.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include <serialize/error.h>

namespace ferry::detail::mpi {
namespace {

// Unlinks every entry of the directory open at `fd` (it holds files only).
// System calls only: the guard runs it in a forked child of a threaded
// process, where only async-signal-safe calls may be made.
void empty(int fd) {
  alignas(8) char buf[4096];
  for (int pass = 0; pass < 64; ++pass) {  // bounded: entries may move under a rewind
    ::lseek(fd, 0, SEEK_SET);
    bool removed = false;
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        // The kernel's linux_dirent64, which glibc's dirent64 matches.
        const auto* e = reinterpret_cast<const struct dirent64*>(buf + at);
        at += e->d_reclen;
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
        if (::unlinkat(fd, e->d_name, 0) == 0) removed = true;
      }
    }
    if (!removed) return;
  }
}

// Closes every descriptor but `keep_a` and `keep_b`.
void close_all_but(int keep_a, int keep_b) {
  const int low = keep_a < keep_b ? keep_a : keep_b, high = keep_a < keep_b ? keep_b : keep_a;
  const auto close_span = [](unsigned first, unsigned last) {
    if (first > last) return;
    if (::syscall(SYS_close_range, first, last, 0) == 0) return;
    struct rlimit r {};
    const unsigned most = ::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < 65536 ? static_cast<unsigned>(r.rlim_cur) : 65536;
    for (unsigned fd = first; fd <= last && fd < most; ++fd) ::close(static_cast<int>(fd));
  };
  close_span(0, static_cast<unsigned>(low) - 1);
  close_span(static_cast<unsigned>(low) + 1, static_cast<unsigned>(high) - 1);
  close_span(static_cast<unsigned>(high) + 1, UINT_MAX);
}

// The guard's life (see the header): never returns.
[[noreturn]] void guard_until_gone(int watch, int dir_fd, const char* path) {
  ::setsid();
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigemptyset(&ignore.sa_mask);
  for (const int sig : {SIGTERM, SIGINT, SIGHUP, SIGPIPE}) ::sigaction(sig, &ignore, nullptr);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Holding nothing of the agent's: not its MPI connections, not its
  // workers' pipes, whose ends must close when the agent is gone.
  close_all_but(watch, dir_fd);
  char c;
  while (::read(watch, &c, 1) < 0 && errno == EINTR) {
  }
  empty(dir_fd);
  ::rmdir(path);
  ::_exit(0);
}

[[noreturn]] void throw_errno(const std::string& what) {
  throw error("ferry: the MPI agent cannot " + what + ": " + std::generic_category().message(errno));
}

}  // namespace

modules_dir::modules_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = (tmp != nullptr && *tmp != '\0' ? std::string(tmp) : std::string("/tmp")) +
                        "/ferry-modules-" + std::to_string(::getpid()) + ".XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw_errno("make a directory for shipped modules ('" + pattern + "'; set TMPDIR to a writable one)");
  path_ = pattern;
  dir_fd_.reset(::open(pattern.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  int ends[2] = {-1, -1};
  if (!dir_fd_ || ::pipe2(ends, O_CLOEXEC) != 0) {
    const int saved = errno;
    dir_fd_.reset();
    ::rmdir(pattern.c_str());
    errno = saved;
    throw_errno("prepare its directory for shipped modules '" + pattern + "'");
  }
  const unique_fd guard_end(ends[0]);
  agent_end_.reset(ends[1]);
  guard_ = ::fork();
  if (guard_ == 0) guard_until_gone(guard_end.get(), dir_fd_.get(), pattern.c_str());
  if (guard_ < 0) {
    const int saved = errno;
    agent_end_.reset();
    dir_fd_.reset();
    ::rmdir(pattern.c_str());
    errno = saved;
    throw_errno("start the guard of its directory for shipped modules");
  }
}

modules_dir::~modules_dir() {
  empty(dir_fd_.get());
  dir_fd_.reset();
  ::rmdir(path_.c_str());
  agent_end_.reset();  // the guard wakes, finds nothing left, and exits
  while (::waitpid(guard_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace ferry::detail::mpi
