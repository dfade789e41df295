// Copyright ferry authors.
//
// Programs that a task runs (exec, system(), popen, posix_spawn) do not
// inherit the worker's channel to the pool, like Python since PEP 446; a
// worker whose channel closes while its process lives on is killed, and its
// task fails with ferry::worker_died_error saying so. Ctrl-C at a terminal
// (SIGINT to the whole foreground process group) is the program's to
// handle: its workers and their tasks go on, while programs a task runs
// still end on it. A worker's stdin is /dev/null, as a child's of Python's
// multiprocessing: the program's input stays the program's. Once per start
// method.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <executor/executor.h>

#include "../temp_dir.h"
#include "test_harness.h"
#include "test_tasks.h"

using ferry_test::get_within;
using ChildProcess = ferry_test::ExecutorTest;

namespace {

// The last line of text, and the text before it.
std::pair<std::string, std::string> split_last_line(const std::string& text) {
  const std::size_t at = text.rfind('\n');
  if (at == std::string::npos) return {"", text};
  return {text.substr(0, at), text.substr(at + 1)};
}

}  // namespace

TEST_F(ChildProcess, TaskThatExecsAnotherProgramFailsAndThePoolGoesOn) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::exec_program(), std::string("/bin/sleep"));
  auto e = ferry_test::expect_error<ferry::worker_died_error>([&] { get_within(f); });
  ferry_test::expect_message(e, "closed its connection to the pool while its process lived on");
  ferry_test::expect_pool_serves(pool);
}

TEST_F(ChildProcess, ShellStartedByATaskDoesNotHoldTheChannel) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::shell_descriptors());
  const auto [descriptors, sockets] = split_last_line(get_within(f));
  std::istringstream each(sockets);
  int count = 0;
  for (std::string socket; each >> socket; ++count) {
    ASSERT_TRUE(socket.starts_with("socket:")) << socket;
    EXPECT_EQ(descriptors.find(socket), std::string::npos)
        << "the shell inherited the worker's channel " << socket << ":\n" << descriptors;
  }
  EXPECT_EQ(count, 2) << "the worker's two sockets: " << sockets;
  ferry_test::expect_pool_serves(pool);
}

TEST_F(ChildProcess, GrandchildOutlivingItsTaskDoesNotHoldTheChannel) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::spawn_lingering());
  std::istringstream reply(get_within(f));
  int grandchild = 0;
  std::vector<std::string> sockets;
  reply >> grandchild;
  for (std::string socket; reply >> socket;) sockets.push_back(socket);
  ASSERT_GT(grandchild, 0);
  ASSERT_EQ(sockets.size(), 2u) << "the worker's two sockets";
  for (const std::string& socket : sockets) ASSERT_TRUE(socket.starts_with("socket:")) << socket;
  std::string held;
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(grandchild) + "/fd", ec)) {
    std::error_code link_ec;
    const std::string target = std::filesystem::read_symlink(fd.path(), link_ec).string();
    if (std::find(sockets.begin(), sockets.end(), target) != sockets.end()) held = fd.path().string();
  }
  // The worker goes on serving while its grandchild lives, and the pool
  // shuts down without waiting for it.
  ferry_test::expect_pool_serves(pool);
  pool.shutdown({});
  ::kill(grandchild, SIGKILL);  // not ours to reap: its parent, the worker, is gone
  EXPECT_TRUE(ec.value() == 0) << "cannot read the grandchild's descriptors: " << ec.message();
  EXPECT_EQ(held, "") << "the grandchild holds the worker's channel as " << held;
}


TEST_F(ChildProcess, CtrlCReachingAWorkerLeavesItAndItsTaskRunning) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::interrupted_then_pid(), 200);
  int pid = 0;
  EXPECT_NO_THROW(pid = get_within(f)) << "a worker died of SIGINT, its task with it";
  EXPECT_GT(pid, 0);
  auto again = pool.submit(test_tasks::interrupted_then_pid(), 0);
  EXPECT_EQ(get_within(again), pid) << "the same worker serves on";
}

TEST_F(ChildProcess, AProgramATaskRunsStillEndsOnCtrlC) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::interrupted_shell());
  EXPECT_EQ(get_within(f), SIGINT) << "a program started by a task inherited an ignored SIGINT (-1) or none ended it";
}

namespace {
int interrupt_pipe = -1;
void on_interrupt(int) {
  const char c = 'x';
  [[maybe_unused]] const ssize_t n = ::write(interrupt_pipe, &c, 1);
}
}  // namespace

TEST_F(ChildProcess, AWorkerDoesNotRunTheProgramsOwnInterruptHandler) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
  interrupt_pipe = fds[1];
  struct sigaction sa {}, before {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(::sigaction(SIGINT, &sa, &before), 0);
  {
    // Made after the handler: a forked worker starts as a copy of this
    // process, the handler and the pipe included.
    ferry::process_pool pool(ferry_test::options(1));
    auto f = pool.submit(test_tasks::interrupted_then_pid(), 50);
    EXPECT_GT(get_within(f), 0);
    ::raise(SIGINT);  // and the program's own handler runs here
  }
  ::sigaction(SIGINT, &before, nullptr);
  ::close(fds[1]);
  std::string written;
  char c;
  while (::read(fds[0], &c, 1) == 1) written += c;
  ::close(fds[0]);
  EXPECT_EQ(written, "x") << "the handler ran in this process only once, and never in a worker";
}

TEST_F(ChildProcess, AWorkerStartsWithNoSignalBlockedWhateverTheProgramBlocks) {
  // A program that takes its signals through signalfd or sigwait blocks
  // them first, in every thread it makes: the pool's manager thread too.
  sigset_t blocked, before;
  sigemptyset(&blocked);
  for (const int sig : {SIGTERM, SIGINT, SIGCHLD, SIGUSR1}) sigaddset(&blocked, sig);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &blocked, &before), 0);
  std::vector<int> in_worker{-1};
  std::string shell_ended_by;
  {
    ferry::process_pool pool(ferry_test::options(1));
    auto f = pool.submit(test_tasks::blocked_signals());
    in_worker = get_within(f);
    auto shell = pool.submit(test_tasks::interrupted_shell());
    shell_ended_by = std::to_string(get_within(shell));
  }
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  EXPECT_EQ(in_worker, std::vector<int>{}) << "the worker kept the program's blocked signals";
  EXPECT_EQ(shell_ended_by, std::to_string(SIGINT)) << "a program the task ran started with SIGINT blocked";
}

TEST_F(ChildProcess, EveryWorkerRunsWhereThePoolsFirstWorkerStartedThoseStartedLaterToo) {
  const std::filesystem::path before = std::filesystem::current_path();
  ferry_test::temp_dir first_in, moved_to;
  std::string first, replacement;
  {
    ferry::process_pool pool(ferry_test::options(1));
    std::filesystem::current_path(first_in.path());  // workers start at the first task
    auto f = pool.submit(test_tasks::working_directory());
    first = get_within(f);
    std::filesystem::current_path(moved_to.path());
    auto dies = pool.submit(test_tasks::sabotage(), std::string("die"));
    ferry_test::expect_error<ferry::worker_died_error>([&] { get_within(dies); });
    auto g = pool.submit(test_tasks::working_directory());  // on the worker that replaced it
    replacement = get_within(g);
  }
  std::filesystem::current_path(before);
  const std::string expected = std::filesystem::canonical(first_in.path()).string();
  EXPECT_EQ(first, expected);
  EXPECT_EQ(replacement, expected) << "a worker started after the program changed directory ran elsewhere";
}

TEST_F(ChildProcess, ATaskReadingStdinFindsItsEndAndTheProgramKeepsItsInput) {
  int input[2];
  ASSERT_EQ(::pipe2(input, O_CLOEXEC), 0);
  const int saved = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 10);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(::dup2(input[0], STDIN_FILENO), STDIN_FILENO);  // the program's input: a pipe kept open
  ::close(input[0]);
  const std::string line = "for the program\n";
  ASSERT_EQ(::write(input[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
  std::string in_task;
  {
    ferry::process_pool pool(ferry_test::options(1));
    auto f = pool.submit(test_tasks::read_stdin());
    in_task = get_within(f);
  }
  char buf[64] = {};
  pollfd p{STDIN_FILENO, POLLIN, 0};
  const ssize_t n = ::poll(&p, 1, 5000) == 1 ? ::read(STDIN_FILENO, buf, sizeof buf) : 0;  // 0: taken
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  ::close(input[1]);
  EXPECT_EQ(in_task, "<end>") << "the worker read the program's stdin";
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), line);
}

TEST_F(ChildProcess, AProgramWithStdinStdoutAndStderrClosedStartsWorkersThatServe) {
#if defined(FERRY_UNDER_TSAN)
  // ThreadSanitizer refuses to start a thread after a multi-threaded fork,
  // and the helper's pool starts its manager.
  GTEST_SKIP() << "ThreadSanitizer does not start threads in a forked child";
#endif
  std::fflush(nullptr);
  const pid_t helper = ::fork();
  ASSERT_GE(helper, 0);
  if (helper == 0) {
    // Its sockets and pipes now take descriptors 0, 1 and 2, the numbers a
    // worker is given its stdio at.
    for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) ::close(fd);
    int code = 1;
    try {
      ferry::pool_options o = ferry_test::options(2);
      o.on_output = [](const ferry::output_line&) {};  // captured: pipes at 1 and 2 too
      ferry::process_pool pool(o);
      auto a = pool.submit(test_tasks::add(), 2, 3);
      auto b = pool.submit(test_tasks::read_stdin());
      if (a.wait_for(std::chrono::seconds(30)) == std::future_status::ready && a.get() == 5 &&
          b.wait_for(std::chrono::seconds(30)) == std::future_status::ready && b.get() == "<end>")
        code = 0;
      pool.shutdown({.kill_running = true});
    } catch (...) {
      code = 2;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(helper, &status, 0), helper);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "status " << status << " (exit 1: a wrong or missing result, 2: an exception)";
}
