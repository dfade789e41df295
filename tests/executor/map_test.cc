// Copyright ferry authors.
//
// map and map_ordered: input order, the first failure, results as they
// arrive, a timeout.
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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
using Executor = ferry_test::ExecutorTest;

TEST_F(Executor, MapKeepsInputOrder) {
  ferry::process_pool pool(options());
  std::vector<int> inputs;
  for (int i = 0; i < 100; ++i) inputs.push_back(i);
  for (std::size_t chunk : {1u, 7u, 256u}) {
    const std::vector<int> out = pool.map(test_tasks::scale(3), inputs, chunk);
    ASSERT_EQ(out.size(), inputs.size());
    for (int i = 0; i < 100; ++i) EXPECT_EQ(out[i], 3 * i) << "chunksize " << chunk;
  }
  pool.map(test_tasks::discard(), inputs, 10);
}

TEST_F(Executor, MapRethrowsTheFirstFailureInOrder) {
  ferry::process_pool pool(options());
  const std::vector<std::string> kinds = {"none", "out_of_range", "runtime_error"};
  EXPECT_THROW(pool.map(test_tasks::throw_std(), kinds, 1), std::out_of_range);
}

TEST_F(Executor, MapOrderedYieldsResultsAsTheyArrive) {
  ferry::process_pool pool(options(2));
  const auto start = std::chrono::steady_clock::now();
  auto results = pool.map_ordered(test_tasks::sleep_ms(), std::vector<int>{1, 1500});
  auto it = results.begin();
  EXPECT_GT(*it, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1200ms);  // did not wait for the slow one
  ++it;
  EXPECT_GT(*it, 0);
  ++it;
  EXPECT_TRUE(it == results.end());
}

TEST_F(Executor, MapWithATimeout) {
  ferry::process_pool pool(options(1));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(pool.map(test_tasks::sleep_ms(), std::vector<int>{1000, 1000, 1000}, 1, 200ms),
               ferry::wait_timeout_error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 900ms);
  EXPECT_EQ(pool.map(test_tasks::scale(2), std::vector<int>{1, 2}, 1, 10s), (std::vector<int>{2, 4}));
}

