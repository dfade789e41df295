// Copyright ferry authors.
//
// Faults injected into a running pool, once per start method (as
// executor_test): a worker killed at each step of the protocol, a worker
// that writes garbage or forges a message, a broken socket, no process or
// descriptor left to start a worker, no shared memory. Each must end with a
// typed error on the affected future only, within a bounded wait, and a pool
// that serves the next task; the fixture then checks that no process and no
// descriptor is left behind.
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "out_of_descriptors.h"
#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;

using ferry_test::expect_error;
using ferry_test::expect_message;
using ferry_test::expect_pool_serves;
using ferry_test::get_within;
using ferry_test::start_one_worker;
using ferry_test::options;
using FaultInjection = ferry_test::ExecutorTest;

// --- A worker killed at each step of the protocol ---

TEST_F(FaultInjection, WorkerKilledBeforeReadingItsTask) {
  ferry::process_pool pool(options(1));
  const int pid = start_one_worker(pool);
  ::kill(pid, SIGSTOP);  // the task waits, unread, in the socket
  auto f = pool.submit(test_tasks::add(), 2, 3);
  std::this_thread::sleep_for(50ms);
  ::kill(pid, SIGKILL);
  auto e = expect_error<ferry::worker_died_error>([&] { get_within(f); });
  EXPECT_EQ(e.pid(), pid);
  expect_message(e, "SIGKILL");
  expect_pool_serves(pool);
}

// The write failed before its last byte, so the worker never had the whole
// task, which therefore never ran: a new worker runs it.
TEST_F(FaultInjection, WorkerKilledWhileReceivingItsTaskLeavesItToAnother) {
  ferry::pool_options o = options(1);
  o.shared_memory_threshold = o.max_message_size;  // inline: larger than the socket buffer
  ferry::process_pool pool(o);
  const int pid = start_one_worker(pool);
  ::kill(pid, SIGSTOP);  // the pool's write stops part way
  // Many times the socket's buffer (a few hundred KiB), so that the write
  // is part way when the worker dies.
  auto f = pool.submit(test_tasks::length(), std::string(4u << 20, 'x'));
  std::this_thread::sleep_for(100ms);
  ::kill(pid, SIGKILL);
  EXPECT_EQ(get_within(f), std::size_t{4} << 20);
  const std::vector<int> now = pool.worker_pids();
  EXPECT_EQ(std::count(now.begin(), now.end(), pid), 0);
  expect_pool_serves(pool);
}

// The pool's last look at a worker finds it idle; it dies before the pool
// sends it the next task. The manager is held in a result's callback
// (callbacks run on it) while the worker dies, so that the send meets the
// dead worker's socket before the pool sees the exit. The task never ran
// and runs elsewhere.
TEST_F(FaultInjection, ATaskWrittenToAWorkerThatDiedUnnoticedRunsOnAnother) {
  ferry::process_pool pool(options(3));
  {
    std::vector<ferry::future<int>> warm;
    for (int i = 0; i < 3; ++i) warm.push_back(pool.submit(test_tasks::sleep_ms(), 200));
    for (auto& f : warm) get_within(f);
  }
  const std::vector<int> pids = pool.worker_pids();  // in the order tasks are offered to them
  ASSERT_EQ(pids.size(), 3u);
  // The first worker busy throughout, the second idle before the third's
  // result, which holds the manager.
  auto busy = pool.submit(test_tasks::sleep_ms(), 3000);
  auto quick = pool.submit(test_tasks::sleep_ms(), 50);
  auto holder = pool.submit(test_tasks::sleep_ms(), 1000);
  EXPECT_EQ(get_within(quick), pids[1]);
  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  const std::thread::id test_thread = std::this_thread::get_id();
  holder.on_done([&entered, released, test_thread](const ferry::future<int>&) {
    if (std::this_thread::get_id() == test_thread) return;  // finished before this was set
    entered.set_value();
    released.wait_for(10s);
  });
  ASSERT_EQ(entered.get_future().wait_for(10s), std::future_status::ready)
      << "the holder's result never reached its callback on the manager thread";
  const int victim = pids[1];
  ::kill(victim, SIGKILL);
  siginfo_t info{};
  for (int i = 0; i < 1000; ++i) {  // until it exits, leaving it for the pool to reap
    info.si_pid = 0;
    ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(victim), &info, WEXITED | WNOHANG | WNOWAIT), 0);
    if (info.si_pid == victim) break;
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_EQ(info.si_pid, victim) << "the killed worker did not exit";
  auto next = pool.submit(test_tasks::pid());
  release.set_value();
  EXPECT_EQ(get_within(holder), pids[2]);
  const int ran_in = get_within(next);
  EXPECT_NE(ran_in, victim);
  EXPECT_GT(ran_in, 0);
  EXPECT_EQ(get_within(busy), pids[0]);
}

TEST_F(FaultInjection, WorkerKilledAfterRunningBeforeItsResult) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit(test_tasks::sabotage(), std::string("die"));
  auto e = expect_error<ferry::worker_died_error>([&] { get_within(f); });
  expect_message(e, "SIGKILL");
  expect_pool_serves(pool);
}

TEST_F(FaultInjection, WorkerKilledInTheMiddleOfItsResult) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit(test_tasks::sabotage(), std::string("partial_then_die"));
  auto e = expect_error<ferry::worker_died_error>([&] { get_within(f); });
  expect_message(e, "in the middle of a message");
  expect_pool_serves(pool);
}

// --- A broken connection, a worker that writes what it should not ---

TEST_F(FaultInjection, SocketShutDownUnderTheWorker) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit(test_tasks::sabotage(), std::string("shutdown"));
  expect_error<ferry::worker_died_error>([&] { get_within(f); });
  expect_pool_serves(pool);
}

TEST_F(FaultInjection, WorkerWritingGarbageIsKilled) {
  ferry::process_pool pool(options(2));
  auto bystander = pool.submit(test_tasks::sleep_ms(), 300);
  auto f = pool.submit(test_tasks::sabotage(), std::string("garbage"));
  auto e = expect_error<ferry::worker_died_error>([&] { get_within(f); });
  expect_message(e, "protocol error");
  EXPECT_GT(get_within(bystander), 0);  // the other worker's task is unaffected
  expect_pool_serves(pool);
}

TEST_F(FaultInjection, WorkerForgingAMessageIsKilledAsCompromised) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit(test_tasks::sabotage(), std::string("forged"));
  auto e = expect_error<ferry::worker_died_error>([&] { get_within(f); });
  expect_message(e, "failed authentication");
  expect_pool_serves(pool);
}

// --- Out of descriptors ---

TEST_F(FaultInjection, NoDescriptorToStartAWorker) {
  SKIP_WITHOUT_FREE_DESCRIPTORS();
  ferry::process_pool pool(options(1));
  {
    ferry_test::no_free_descriptor limit;
    auto f = pool.submit(test_tasks::add(), 1, 2);
    auto e = expect_error<ferry::worker_start_error>([&] { get_within(f); });
    expect_message(e, "Too many open files");
  }
  expect_pool_serves(pool);
}

TEST_F(FaultInjection, NoDescriptorForASecondWorkerLeavesTasksToTheFirst) {
  SKIP_WITHOUT_FREE_DESCRIPTORS();
  ferry::process_pool pool(options(2));
  start_one_worker(pool);
  ferry_test::no_free_descriptor limit;
  auto a = pool.submit(test_tasks::sleep_ms(), 100);
  auto b = pool.submit(test_tasks::sleep_ms(), 100);  // a second worker cannot start
  EXPECT_GT(get_within(a), 0);
  EXPECT_GT(get_within(b), 0);
}

TEST_F(FaultInjection, NoSharedMemoryInThePoolSendsInline) {
  SKIP_WITHOUT_FREE_DESCRIPTORS();
  ferry::process_pool pool(options(1));
  start_one_worker(pool);
  ferry_test::no_free_descriptor limit;  // memfd_create fails
  auto f = pool.submit(test_tasks::length(), std::string(4u << 20, 'x'));
  EXPECT_EQ(get_within(f), 4u << 20);
}

TEST_F(FaultInjection, NoSharedMemoryInTheWorkerSendsInline) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit(test_tasks::make_string_without_shared_memory(), std::size_t{4} << 20);
  EXPECT_EQ(get_within(f).size(), std::size_t{4} << 20);
}

TEST_F(FaultInjection, NoDescriptorToReceiveAResult) {
  SKIP_WITHOUT_FREE_DESCRIPTORS();
  ferry::process_pool pool(options(1));
  start_one_worker(pool);
  {
    ferry_test::no_free_descriptor limit;  // the result's memfd cannot be received
    auto f = pool.submit(test_tasks::make_string(), std::size_t{4} << 20);
    auto e = expect_error<ferry::worker_died_error>([&] { get_within(f); });
    expect_message(e, "descriptor was dropped");
  }
  expect_pool_serves(pool);
}

// --- Out of processes ---

namespace {

constexpr std::string_view skip_marker = "skip: ";

// Run in a child of the test: makes this process subject to RLIMIT_NPROC
// (root is exempt: as root, it takes another real uid and drops the
// capabilities that exempt it, keeping effective uid 0 to read the build
// tree), then checks that a pool cannot start a worker, says why, and starts
// one once the limit is lifted. Returns what went wrong, or "".
std::string process_limit_scenario() {
  if (::getuid() == 0) {
    // Where no other uid exists (a user namespace mapping only root), the
    // limit cannot be put on this process: skipped, not failed.
    if (::setresuid(65534, 0, 0) != 0) return std::string(skip_marker) + "cannot take another uid";
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct caps[2]{};
    if (::syscall(SYS_capget, &header, caps) != 0) return "capget failed";
    for (const int cap : {CAP_SYS_RESOURCE, CAP_SYS_ADMIN}) {
      caps[cap / 32].effective &= ~(1u << (cap % 32));
      caps[cap / 32].permitted &= ~(1u << (cap % 32));
    }
    if (::syscall(SYS_capset, &header, caps) != 0) return "capset failed";
  }
  ferry::process_pool pool(options(1));  // its manager thread exists before the limit
  rlimit saved{};
  ::getrlimit(RLIMIT_NPROC, &saved);
  rlimit one = saved;
  one.rlim_cur = 1;
  ::setrlimit(RLIMIT_NPROC, &one);
  auto f = pool.submit(test_tasks::add(), 1, 2);
  std::string problem;
  try {
    get_within(f);
    problem = "a worker started despite RLIMIT_NPROC";
  } catch (const ferry::worker_start_error& e) {
    if (std::string(e.what()).find("Resource temporarily unavailable") == std::string::npos)
      problem = std::string("unexpected message: ") + e.what();
  } catch (const std::exception& e) {
    problem = std::string("unexpected error: ") + e.what();
  }
  ::setrlimit(RLIMIT_NPROC, &saved);
  if (!problem.empty()) return problem;
  try {
    auto g = pool.submit(test_tasks::add(), 2, 3);
    if (get_within(g) != 5) return "wrong result after the limit was lifted";
  } catch (const std::exception& e) {
    return std::string("no worker after the limit was lifted: ") + e.what();
  }
  return "";
}

}  // namespace

TEST_F(FaultInjection, ProcessLimitFailsWorkerStartsUntilLifted) {
  int report[2];
  ASSERT_EQ(::pipe2(report, O_CLOEXEC), 0);
  const pid_t helper = ::fork();
  ASSERT_GE(helper, 0);
  if (helper == 0) {
    ::close(report[0]);
    std::string problem;
    try {
      problem = process_limit_scenario();
    } catch (const std::exception& e) {
      problem = std::string("exception: ") + e.what();
    }
    [[maybe_unused]] const ssize_t n = ::write(report[1], problem.data(), problem.size());
    std::_Exit(problem.empty() ? 0 : 1);
  }
  ::close(report[1]);
  std::string problem;
  pollfd p{report[0], POLLIN, 0};
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  char buf[512];
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      ::kill(helper, SIGKILL);
      problem = "the scenario did not finish within 60 s";
      break;
    }
    const ssize_t n = ::read(report[0], buf, sizeof buf);
    if (n <= 0) break;
    problem.append(buf, static_cast<std::size_t>(n));
  }
  ::close(report[0]);
  int status = 0;
  ::waitpid(helper, &status, 0);
  if (problem.starts_with(skip_marker)) GTEST_SKIP() << problem;
  EXPECT_EQ(problem, "");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

