// Copyright ferry authors.
#include "executor/pool/process_linux.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

#include <cerrno>
#include <csignal>
#include <cstdio>

namespace ferry::detail {

int open_exit_fd(pid_t pid, int child_pipe) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0 || errno != ENOSYS) return fd;
  return ::fcntl(child_pipe, F_DUPFD_CLOEXEC, 0);
}

std::string spawn_program_path() {
#if __has_include(<valgrind/valgrind.h>)
  if (RUNNING_ON_VALGRIND) {
    char path[4096];
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) return std::string(path, static_cast<std::size_t>(n));
  }
#endif
  return "/proc/self/exe";
}

void die_with_parent() { ::prctl(PR_SET_PDEATHSIG, SIGKILL); }

std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "re");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

bool set_close_on_exec(int fd) {
  const int flags = ::fcntl(fd, F_GETFD);
  return flags >= 0 && ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0;
}

}  // namespace ferry::detail
