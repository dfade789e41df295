// Copyright ferry authors.
#include "executor/pool/process_linux.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <string>

namespace ferry::detail {

int open_exit_fd(pid_t pid, int child_pipe) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0 || errno != ENOSYS) return fd;
  return ::fcntl(child_pipe, F_DUPFD_CLOEXEC, 0);
}

namespace {

// The first published layout of the kernel's struct pidfd_info
// (<linux/pidfd.h>, newer than the headers Debian 12 ships): 64 bytes, the
// last field the wait status of a process that has exited.
struct pidfd_info_v0 {
  std::uint64_t mask;
  std::uint64_t cgroupid;
  std::uint32_t ids[11];  // pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid
  std::int32_t exit_code;
};
static_assert(sizeof(pidfd_info_v0) == 64, "PIDFD_INFO_SIZE_VER0");
constexpr std::uint64_t pidfd_info_exit = 1u << 3;                            // PIDFD_INFO_EXIT
constexpr unsigned long pidfd_get_info = _IOWR(0xFF, 11, pidfd_info_v0);  // PIDFD_GET_INFO

// Not supported (an older kernel, or exit_fd a pipe): nullopt.
std::optional<int> status_from_pidfd(int exit_fd) {
  pidfd_info_v0 info{};
  info.mask = pidfd_info_exit;
  if (::ioctl(exit_fd, pidfd_get_info, &info) != 0 || (info.mask & pidfd_info_exit) == 0) return std::nullopt;
  return info.exit_code;
}

}  // namespace

std::optional<int> reap_child(pid_t pid, int exit_fd) {
  int status = 0;
  for (;;) {
    if (::waitpid(pid, &status, 0) == pid) return status;
    if (errno != EINTR) break;
  }
  return exit_fd >= 0 ? status_from_pidfd(exit_fd) : std::nullopt;
}

void kill_child(pid_t pid, int exit_fd) {
  if (exit_fd >= 0 && ::syscall(SYS_pidfd_send_signal, exit_fd, SIGKILL, nullptr, 0) == 0) return;
  // ESRCH: it has exited (perhaps reaped by another); nothing to kill.
  if (exit_fd >= 0 && errno == ESRCH) return;
  ::kill(pid, SIGKILL);  // exit_fd is a pipe (no pidfd_open), or the call is missing
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

std::string descriptor_shortage(int err) {
  if (err == ENFILE)
    return " (the system's limit on open files is reached: close files elsewhere, or raise "
           "fs.file-max)";
  if (err != EMFILE) return {};
  rlimit limit{};
  std::string which = "its limit on open descriptors";
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    which = std::to_string(limit.rlim_cur) + " open descriptors";
  return " (this process has reached RLIMIT_NOFILE, " + which +
         ": each pool and each of its workers holds some here; raise the limit (ulimit -n, "
         "setrlimit) or make fewer pools or workers)";
}

void die_with_parent() { ::prctl(PR_SET_PDEATHSIG, SIGKILL); }

namespace {
void on_terminal_interrupt(int) {}
}  // namespace

void outlive_terminal_interrupt() {
  struct sigaction sa {};
  sa.sa_handler = on_terminal_interrupt;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
}

void unblock_all_signals() {
  sigset_t none;
  sigemptyset(&none);
  ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
}

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
