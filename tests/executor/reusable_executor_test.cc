// Copyright ferry authors.
//
// get_reusable_executor and pool handles: one pool while the options stay,
// resized or replaced when they change.
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;

using ferry_test::method;
using ferry_test::options;
using ReusableExecutor = ferry_test::ExecutorTest;

TEST_F(ReusableExecutor, ReusableExecutorIsReusedAndResized) {
  keeps_reusable_pool();
  ferry::pool_options o = options(1);
  ferry::process_pool a = ferry::get_reusable_executor(o);
  EXPECT_EQ(a.submit(test_tasks::add(), 1, 2).get(), 3);
  const std::vector<int> pids = a.worker_pids();
  ferry::process_pool b = ferry::get_reusable_executor(o);
  EXPECT_EQ(b.worker_pids(), pids);  // same pool, same workers
  EXPECT_EQ(b.submit(test_tasks::pid()).get(), pids.at(0));
  o.max_workers = 2;
  ferry::process_pool c = ferry::get_reusable_executor(o);
  EXPECT_EQ(c.max_workers(), 2u);
  EXPECT_EQ(a.max_workers(), 2u);  // one pool
  c.shutdown();
  ferry::process_pool d = ferry::get_reusable_executor(o);
  EXPECT_FALSE(d.is_shutdown());
  EXPECT_EQ(d.submit(test_tasks::add(), 2, 2).get(), 4);
  d.shutdown();
}

TEST_F(ReusableExecutor, ReusableExecutorIsOnePoolUntilItsOptionsChange) {
  keeps_reusable_pool();
  ferry::pool_options o = options(1);
  ferry::process_pool first = ferry::get_reusable_executor(o);
  EXPECT_TRUE(first == ferry::get_reusable_executor(o));
  o.env["FERRY_TEST_VALUE"] = "another pool";
  EXPECT_FALSE(first == ferry::get_reusable_executor(o));
}

TEST_F(ReusableExecutor, ReusableExecutorReplacedWhenOtherOptionsChange) {
  keeps_reusable_pool();
  ferry::pool_options o = options(1);
  ferry::process_pool a = ferry::get_reusable_executor(o);
  const int first = a.submit(test_tasks::pid()).get();
  std::atomic<bool> stop{false};
  std::atomic<int> served{0};
  std::thread user([&] {  // keeps using its handle while the pool is resized and replaced
    while (!stop) served += a.submit(test_tasks::add(), 1, 1).get() == 2;
  });
  o.max_workers = 2;
  ferry::process_pool resized = ferry::get_reusable_executor(o);
  o.env["FERRY_TEST_VALUE"] = "replaced";
  ferry::process_pool replaced = ferry::get_reusable_executor(o);
  EXPECT_EQ(replaced.submit(test_tasks::getenv(), std::string("FERRY_TEST_VALUE")).get(), "replaced");
  std::this_thread::sleep_for(100ms);
  stop = true;
  user.join();
  EXPECT_GT(served.load(), 0);
  EXPECT_EQ(resized.max_workers(), 2u);  // the same pool as a
  EXPECT_EQ(a.max_workers(), 2u);
  EXPECT_NE(replaced.submit(test_tasks::pid()).get(), first);
  a.shutdown();
  replaced.shutdown();
}

TEST_F(ReusableExecutor, HandlesCompareEqualWhenTheyReferToTheSamePool) {
  ferry::process_pool a(options(1));
  ferry::process_pool copy = a;
  ferry::process_pool other(options(1));
  EXPECT_TRUE(a == copy);
  EXPECT_FALSE(a == other);
  EXPECT_TRUE(a != other);
  ferry::process_pool moved = std::move(copy);
  EXPECT_TRUE(moved == a);
}


// fork() copied the process-wide pool into the child, where it has no
// manager or workers: the child's first call makes its own pool, which
// runs tasks, and the parent's pool serves on.
TEST_F(ReusableExecutor, AForkedChildGetsAPoolOfItsOwn) {
#if defined(FERRY_UNDER_TSAN)
  // ThreadSanitizer refuses to start a thread after a multi-threaded fork,
  // and the child's pool starts its manager.
  GTEST_SKIP() << "ThreadSanitizer does not start threads in a forked child";
#endif
  keeps_reusable_pool();
  ferry::process_pool parent = ferry::get_reusable_executor(options(1));
  auto before = parent.submit(test_tasks::add(), 1, 2);
  ASSERT_EQ(ferry_test::get_within(before), 3);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int result = -1;
    try {
      ferry::process_pool own = ferry::get_reusable_executor(options(1));
      auto f = own.submit(test_tasks::add(), 2, 3);
      result = f.wait_for(std::chrono::seconds(20)) == std::future_status::ready ? f.get() : -2;
      own.shutdown();
    } catch (...) {
      result = -3;
    }
    ::_exit(result == 5 ? 0 : 1);
  }
  int status = 0;
  for (int i = 0; i < 600 && ::waitpid(child, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (::waitpid(child, &status, WNOHANG) == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "the child hung";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  auto after = ferry::get_reusable_executor(options(1)).submit(test_tasks::add(), 3, 4);
  EXPECT_EQ(ferry_test::get_within(after), 7);
  EXPECT_EQ(ferry::get_reusable_executor(options(1)), parent);
  parent.shutdown();
}
