// Copyright ferry authors.
//
// src/executor/front/process_pool.cc: the handle users hold, each of its
// calls handed to the pool it shares with its copies. The workers here are
// threads of this process (start_method::in_process), so the handle is
// tested without starting a process; what workers do is the pool tests'.
#include <executor/process_pool.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <utility>

#include <executor/executor.h>
#include "out_of_descriptors.h"

namespace {

ferry::pool_options in_process(std::size_t workers) {
  ferry::pool_options o;
  o.max_workers = workers;
  o.start = ferry::start_method::in_process;
  return o;
}

TEST(ProcessPool, APoolMadeWithNoDescriptorToSpareSaysWhichLimitToRaise) {
  SKIP_WITHOUT_FREE_DESCRIPTORS();
  std::string what;
  {
    ferry_test::no_free_descriptor guard;
    try {
      ferry::process_pool pool(in_process(1));
    } catch (const ferry::error& e) {
      what = e.what();
    }
  }
  ASSERT_FALSE(what.empty()) << "a pool was made with no descriptor to spare";
  EXPECT_NE(what.find("Too many open files"), std::string::npos) << what;
  EXPECT_NE(what.find("RLIMIT_NOFILE"), std::string::npos) << what;
  EXPECT_NE(what.find("ulimit -n"), std::string::npos) << what;
}

TEST(ProcessPool, ACopyIsTheSamePoolAndAnotherPoolIsNot) {
  ferry::process_pool a(in_process(1));
  const ferry::process_pool copy = a;
  ferry::process_pool b(in_process(1));
  EXPECT_TRUE(copy == a);
  EXPECT_FALSE(b == a);
  b = a;
  EXPECT_TRUE(b == a);
  ferry::process_pool moved = std::move(b);
  EXPECT_TRUE(moved == a);
}

// ferry::process_pool pool(4), as ProcessPoolExecutor(4) reads, did not
// compile ("no matching function"). No task is submitted: nothing starts.
TEST(ProcessPool, AWorkerCountAloneMakesAPoolOfThatManyAndANegativeOneIsRefused) {
  ferry::process_pool four(4);
  EXPECT_EQ(four.max_workers(), 4u);
  EXPECT_EQ(four.options().max_workers, 4u);
  EXPECT_EQ(four.options().start, ferry::pool_options{}.start);
  ferry::process_pool per_cpu(0);
  EXPECT_EQ(per_cpu.max_workers(), ferry::cpu_count());
  try {
    ferry::process_pool negative(-2);
    ADD_FAILURE() << "a pool of -2 workers was made";
  } catch (const ferry::error& e) {
    EXPECT_NE(std::string(e.what()).find("process_pool(-2): a worker count cannot be negative"), std::string::npos)
        << e.what();
  }
}

TEST(ProcessPool, ItsOptionsAreThoseGivenAndMaxWorkersFollowsResize) {
  ferry::process_pool pool(in_process(3));
  EXPECT_EQ(pool.options().max_workers, 3u);
  EXPECT_EQ(pool.options().start, ferry::start_method::in_process);
  EXPECT_EQ(pool.max_workers(), 3u);
  pool.resize(1);
  EXPECT_EQ(pool.max_workers(), 1u);
  EXPECT_EQ(pool.options().max_workers, 3u) << "the options are those it was made with";
}

TEST(ProcessPool, WorkerPidsAreThoseOfLiveWorkersAndNoneAfterShutdown) {
  ferry::process_pool pool(in_process(1));
  EXPECT_TRUE(pool.worker_pids().empty()) << "workers start on demand";
  auto f = pool.submit([](int x) { return x * 3; }, 14);
  ASSERT_EQ(f.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(f.get(), 42);
  const std::vector<int> pids = pool.worker_pids();
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_NE(pids[0], ::getpid()) << "an in-process worker shows its thread's id";
  pool.shutdown();
  EXPECT_TRUE(pool.is_shutdown());
  EXPECT_TRUE(pool.worker_pids().empty());
}

TEST(ProcessPool, ACopyShutsDownThePoolItShares) {
  ferry::process_pool pool(in_process(1));
  ferry::process_pool copy = pool;
  copy.shutdown();
  EXPECT_TRUE(pool.is_shutdown());
  EXPECT_THROW(pool.submit([](int x) { return x; }, 1), ferry::pool_shutdown_error);
}

}  // namespace
