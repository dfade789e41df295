// Copyright ferry authors.
//
// The low-latency mode (pool_options::spin): results, crashes and maps are
// what they are without it, and a pool that has gone idle sleeps instead of
// spinning, in its workers and in its manager.
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;
using ferry_test::expect_error;
using ferry_test::get_within;
using Spin = ferry_test::ExecutorTest;

namespace {

ferry::pool_options spinning(std::size_t workers, std::chrono::microseconds spin) {
  ferry::pool_options o = ferry_test::options(workers);
  o.spin = spin;
  return o;
}

// CPU time (user and system) of a process or of one of this process's
// threads, from /proc: `stat` is "PID/stat" or "self/task/TID/stat".
std::chrono::milliseconds cpu_time(const std::string& stat) {
  std::ifstream in("/proc/" + stat);
  std::string line;
  std::getline(in, line);
  // Fields after the command, which is in parentheses and may hold spaces.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  long ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i)
    if (i == 14 || i == 15) ticks += std::stol(field);
  return std::chrono::milliseconds(ticks * 1000 / ::sysconf(_SC_CLK_TCK));
}

// Every thread of this process.
std::chrono::milliseconds this_process_cpu() { return cpu_time("self/stat"); }

}  // namespace

TEST_F(Spin, ASpinningPoolGivesTheSameResultsAndFailures) {
  ferry::process_pool pool(spinning(2, 200us));
  for (int i = 0; i < 200; ++i) {
    auto f = pool.submit(test_tasks::add(), i, 1);
    ASSERT_EQ(get_within(f), i + 1);
  }
  std::vector<int> in(1000);
  for (int i = 0; i < 1000; ++i) in[static_cast<std::size_t>(i)] = i;
  const std::vector<int> out = pool.map(test_tasks::scale(3), in, 16);
  ASSERT_EQ(out.size(), in.size());
  EXPECT_EQ(out[999], 2997);
  // A worker that dies while the manager polls is seen as when it sleeps:
  // only its task fails, and the pool goes on.
  auto crashed = pool.submit(test_tasks::crash(), std::string("abort"));
  expect_error<ferry::worker_died_error>([&] { get_within(crashed); });
  ferry_test::expect_pool_serves(pool);
}

// Spinning is bounded by what was asked, per wait, and stops once the waits
// grow longer: an idle pool burns nothing.
TEST_F(Spin, AnIdleSpinningPoolSleepsInItsWorkersAndItsManager) {
  ferry::process_pool pool(spinning(1, 20ms));
  for (int i = 0; i < 20; ++i) {
    auto f = pool.submit(test_tasks::add(), i, 1);
    ASSERT_EQ(get_within(f), i + 1);
  }
  const std::vector<int> pids = pool.worker_pids();
  ASSERT_EQ(pids.size(), 1u);
  const std::string worker = std::to_string(pids[0]) + "/stat";
  std::this_thread::sleep_for(200ms);  // past one spin of each side after the last task
  const auto worker_before = cpu_time(worker);
  const auto pool_before = this_process_cpu();
  std::this_thread::sleep_for(1s);
  // Scheduler ticks are 10 ms at worst; a side still spinning would have
  // taken most of the second.
  EXPECT_LT(cpu_time(worker) - worker_before, 100ms);
  EXPECT_LT(this_process_cpu() - pool_before, 100ms);
}
