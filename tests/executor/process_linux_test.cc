// Copyright ferry authors.
//
// src/executor/pool/process_linux.cc: the Linux process calls the pool
// makes, each checked against what the kernel then shows.
#include "executor/pool/process_linux.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

bool readable_within(int fd, int ms) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  return ::poll(&p, 1, ms) == 1 && (p.revents & (POLLIN | POLLHUP)) != 0;
}

TEST(ProcessLinux, TheExitDescriptorBecomesReadableWhenTheChildExitsAndNotBefore) {
  int gate[2];  // the child exits when the parent closes the write end
  ASSERT_EQ(::pipe2(gate, O_CLOEXEC), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(gate[1]);
    char c;
    ::_exit(::read(gate[0], &c, 1) == 0 ? 0 : 1);
  }
  ::close(gate[0]);
  const int fd = ferry::detail::open_exit_fd(child, -1);
  ASSERT_GE(fd, 0) << "errno " << errno;
  EXPECT_FALSE(readable_within(fd, 50)) << "readable while the child runs";
  ::close(gate[1]);
  EXPECT_TRUE(readable_within(fd, 10000)) << "not readable after the child exited";
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ::close(fd);
}

// Whether the kernel keeps a reaped child's wait status for its pidfd
// (PIDFD_INFO_EXIT, Linux 6.15).
bool kernel_keeps_reaped_status() {
  utsname u{};
  int major = 0, minor = 0;
  return ::uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
         (major > 6 || (major == 6 && minor >= 15));
}

TEST(ProcessLinux, AChildIsKilledThroughItsPidfdAndReapedWithItsStatus) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const int fd = ferry::detail::open_exit_fd(child, -1);
  ASSERT_GE(fd, 0);
  ferry::detail::kill_child(child, fd);
  const std::optional<int> status = ferry::detail::reap_child(child, fd);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL);
  ::close(fd);
}

// What happens to a worker of a program whose own SIGCHLD handling reaps
// every child: the status is the kernel's record where it keeps one, else
// unknown, and never made up; and killing it then signals nothing (its pid
// may already be another process's).
TEST(ProcessLinux, AChildThatAnotherReapedHasItsRecordedStatusOrNone) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(5);
  const int fd = ferry::detail::open_exit_fd(child, -1);
  ASSERT_GE(fd, 0);
  int stolen = 0;
  ASSERT_EQ(::waitpid(child, &stolen, 0), child);  // as a handler calling waitpid(-1) would
  ferry::detail::kill_child(child, fd);             // ESRCH through the pidfd: no kill(pid)
  const std::optional<int> status = ferry::detail::reap_child(child, fd);
  if (kernel_keeps_reaped_status()) {
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 5);
  } else if (status) {
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 5);
  }
  ::close(fd);
}

TEST(ProcessLinux, ASpawnedWorkerRunsThisVeryExecutable) {
  // Outside valgrind the path is the kernel's link to this process's image.
  EXPECT_EQ(ferry::detail::spawn_program_path(), "/proc/self/exe");
}

TEST(ProcessLinux, ResidentBytesGrowWithTouchedMemory) {
  const std::uint64_t before = ferry::detail::resident_bytes();
  ASSERT_GT(before, 0u);
  const std::vector<char> grown(40u << 20, 1);  // above malloc's mmap threshold: fresh pages
  const std::uint64_t after = ferry::detail::resident_bytes();
  EXPECT_GE(after, before + (32u << 20)) << "before " << before << ", after " << after;
  EXPECT_EQ(grown.back(), 1);
}

TEST(ProcessLinux, CloseOnExecIsSetAndABadDescriptorSaysSo) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  EXPECT_EQ(::fcntl(p[0], F_GETFD) & FD_CLOEXEC, 0);
  ASSERT_TRUE(ferry::detail::set_close_on_exec(p[0]));
  EXPECT_NE(::fcntl(p[0], F_GETFD) & FD_CLOEXEC, 0);
  ::close(p[0]);
  ::close(p[1]);
  errno = 0;
  EXPECT_FALSE(ferry::detail::set_close_on_exec(p[0]));
  EXPECT_EQ(errno, EBADF);
}

TEST(ProcessLinux, AChildThatAsksToDieWithItsParentThreadIsKilledWhenItEnds) {
  // The "parent" is the thread that forked the child: when it ends, the
  // kernel sends the child SIGKILL, as a worker dies with its manager.
  int ready[2];
  ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
  pid_t child = -1;
  std::thread forker([&] {
    child = ::fork();
    if (child == 0) {
      ferry::detail::die_with_parent();
      ::close(ready[0]);
      const char c = 'r';
      (void)::write(ready[1], &c, 1);
      ::pause();
      ::_exit(0);
    }
    char c;  // the child asked before the thread ends
    if (readable_within(ready[0], 10000)) (void)::read(ready[0], &c, 1);
  });
  forker.join();
  ASSERT_GT(child, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  int status = 0;
  pid_t reaped = 0;
  for (int i = 0; i < 2000 && (reaped = ::waitpid(child, &status, WNOHANG)) == 0; ++i) ::usleep(5000);
  if (reaped == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "the child outlived the thread that started it";
  }
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST(ProcessLinux, AProcessOutlivingTerminalInterruptsCatchesSigintAndAProgramItExecsDoesNot) {
  int survived[2];
  ASSERT_EQ(::pipe2(survived, O_CLOEXEC), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ferry::detail::outlive_terminal_interrupt();
    ::raise(SIGINT);
    [[maybe_unused]] const ssize_t n = ::write(survived[1], "S", 1);
    struct sigaction now {};
    ::sigaction(SIGINT, nullptr, &now);
    if (now.sa_handler == SIG_IGN || now.sa_handler == SIG_DFL || (now.sa_flags & SA_RESTART) == 0) ::_exit(3);
    // exec resets a caught signal: the shell dies of its own SIGINT.
    ::execl("/bin/sh", "sh", "-c", "kill -INT $$; exit 4", static_cast<char*>(nullptr));
    ::_exit(5);
  }
  ::close(survived[1]);
  char mark = 0;
  EXPECT_EQ(::read(survived[0], &mark, 1), 1) << "the process died of its own SIGINT";
  ::close(survived[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited with " << WEXITSTATUS(status)
                                   << " (3: SIGINT not caught; 4: the shell ignored it; 5: no exec)";
  EXPECT_EQ(WTERMSIG(status), SIGINT);
}

TEST(ProcessLinux, UnblockingAllSignalsLeavesTheThreadWithNoneBlocked) {
  std::vector<int> left{-1};
  std::thread([&] {
    sigset_t some;
    sigemptyset(&some);
    sigaddset(&some, SIGTERM);
    sigaddset(&some, SIGUSR2);
    ::pthread_sigmask(SIG_BLOCK, &some, nullptr);
    ferry::detail::unblock_all_signals();
    sigset_t now;
    ::pthread_sigmask(SIG_BLOCK, nullptr, &now);
    left.clear();
    for (int sig = 1; sig < NSIG; ++sig)
      if (sigismember(&now, sig) == 1) left.push_back(sig);
  }).join();
  EXPECT_EQ(left, std::vector<int>{});
}

TEST(ProcessLinux, ADescriptorShortageSaysWhichLimitWasReachedAndWhatToDo) {
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  const std::string process = ferry::detail::descriptor_shortage(EMFILE);
  EXPECT_NE(process.find("RLIMIT_NOFILE"), std::string::npos) << process;
  if (limit.rlim_cur != RLIM_INFINITY) {
    EXPECT_NE(process.find(std::to_string(limit.rlim_cur) + " open descriptors"), std::string::npos) << process;
  }
  EXPECT_NE(process.find("ulimit -n"), std::string::npos) << process;
  EXPECT_NE(process.find("fewer pools or workers"), std::string::npos) << process;
  const std::string system = ferry::detail::descriptor_shortage(ENFILE);
  EXPECT_NE(system.find("system's limit"), std::string::npos) << system;
  EXPECT_EQ(ferry::detail::descriptor_shortage(ENOENT), "") << "only a shortage of descriptors gets a hint";
}

}  // namespace
