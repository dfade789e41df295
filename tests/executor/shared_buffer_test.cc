// Copyright ferry authors.
//
// ferry::shared_buffer through a process pool (docs/api/shared_buffer.md):
// its memory is shared with the worker, not copied, both ways; what a task
// wrote survives the worker's death; nothing stays mapped or open once the
// handles are gone; too many buffers in one message are refused.
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

using ferry_test::expect_error;
using ferry_test::expect_message;
using ferry_test::get_within;
using ferry_test::options;
using SharedBufferInPools = ferry_test::ExecutorTest;

namespace {

// Mappings of shared buffers in a process, from its /proc/PID/maps.
std::size_t buffer_mappings(const std::string& pid = "self") {
  std::ifstream maps("/proc/" + pid + "/maps");
  std::size_t n = 0;
  for (std::string line; std::getline(maps, line);)
    if (line.find("/memfd:ferry-shared-buffer") != std::string::npos) ++n;
  return n;
}

std::uint64_t sum_of(const ferry::shared_buffer& b) {
  std::uint64_t sum = 0;
  for (std::byte x : b.bytes()) sum += static_cast<std::uint8_t>(x);
  return sum;
}

}  // namespace

TEST_F(SharedBufferInPools, ATaskWritesTheCallersSharedBufferInPlace) {
  ferry::process_pool pool(options(1));
  ferry::shared_buffer b(1 << 20);
  std::memset(b.data(), 2, b.size());
  auto f = pool.submit(test_tasks::fill_buffer(), b, 7);
  // The task saw what the caller wrote, and the caller sees what the task
  // wrote, in its own memory: nothing was copied either way.
  EXPECT_EQ(get_within(f), 2u * b.size());
  EXPECT_EQ(sum_of(b), 7u * b.size());
}

TEST_F(SharedBufferInPools, ABufferReturnedFromATaskIsTheSameMemoryAsTheOneSent) {
  ferry::process_pool pool(options(1));
  ferry::shared_buffer sent(4096);
  // The worker is busy first, so that get() waits for the result: its
  // descriptors are read after it arrives, not when get() is called.
  auto busy = pool.submit(test_tasks::sleep_ms(), 200);
  auto f = pool.submit(test_tasks::echo_buffer(), sent);
  // get() itself, not get_within's wait first (bounded by the sleep, and by
  // the test's TIMEOUT).
  ferry::shared_buffer back = f.get();
  ASSERT_EQ(back.size(), sent.size());
  EXPECT_NE(back.data(), sent.data());  // another mapping in this process...
  back.data()[100] = std::byte{42};
  EXPECT_EQ(sent.data()[100], std::byte{42});  // ...of the same pages
}

TEST_F(SharedBufferInPools, BuffersMadeByATaskArriveWithTheirContents) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit(test_tasks::make_buffers(), std::size_t{3}, std::size_t{10000});
  const std::vector<ferry::shared_buffer> got = get_within(f);
  ASSERT_EQ(got.size(), 3u);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(sum_of(got[i]), (i + 1) * 10000) << i;
}

TEST_F(SharedBufferInPools, AWorkerThatDiesHoldingABufferLeavesItsWritesAndTheCallersHandleIntact) {
  ferry::process_pool pool(options(1));
  ferry::shared_buffer b(64 * 1024);
  auto f = pool.submit(test_tasks::fill_then_crash(), b);
  expect_error<ferry::worker_died_error>([&] { get_within(f); });
  EXPECT_EQ(sum_of(b), 0xABu * b.size());
  // The pool heals, and the buffer goes on to the next worker.
  auto g = pool.submit(test_tasks::fill_buffer(), b, 1);
  EXPECT_EQ(get_within(g), 0xABu * b.size());
  EXPECT_EQ(sum_of(b), b.size());
}

TEST_F(SharedBufferInPools, NothingStaysMappedOrOpenAfterManyRoundTrips) {
  ferry::process_pool pool(options(1));
  ferry_test::start_one_worker(pool);
  const std::size_t mapped = buffer_mappings();
  const std::size_t open = ferry_test::open_descriptors();
  for (int i = 0; i < 100; ++i) {
    ferry::shared_buffer b(8192);
    auto f = pool.submit(test_tasks::echo_buffer(), b);
    ferry::shared_buffer back = get_within(f);
    EXPECT_EQ(back.size(), b.size());
  }
  // The manager lets go of the last result's message just after it fulfils
  // the future, so the count may stand one above for a moment: what matters
  // is that it comes back down, bounded by two seconds.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while ((buffer_mappings() != mapped || ferry_test::open_descriptors() != open) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(buffer_mappings(), mapped);
  EXPECT_EQ(ferry_test::open_descriptors(), open);
  // Nor in the worker, once its tasks returned.
  const std::vector<int> pids = pool.worker_pids();
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_EQ(buffer_mappings(std::to_string(pids[0])), 0u);
}

TEST_F(SharedBufferInPools, ATaskPassingMoreBuffersThanAMessageCarriesIsRefusedAtSubmit) {
  ferry::process_pool pool(options(1));
  std::vector<ferry::shared_buffer> many;
  for (int i = 0; i < 65; ++i) many.emplace_back(16);
  const auto count = test_tasks::count_buffers();
  auto f = pool.submit(count, many);
  const ferry::error e = expect_error<ferry::error>([&] { get_within(f); });
  expect_message(e, "65 ferry::shared_buffer values");
  many.pop_back();
  auto g = pool.submit(count, many);
  EXPECT_EQ(get_within(g), 64u);
}

TEST_F(SharedBufferInPools, AResultPassingMoreBuffersThanAMessageCarriesFailsItsFutureOnly) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit(test_tasks::make_buffers(), std::size_t{65}, std::size_t{16});
  const ferry::serialization_error e = expect_error<ferry::serialization_error>([&] { get_within(f); });
  EXPECT_EQ(e.where(), ferry::serialization_error::phase::saving_result);
  expect_message(e, "more than 64");
  ferry_test::expect_pool_serves(pool);
}

// docs/api/shared_buffer.md: a forked worker is a copy of the pool's process,
// buffers included; spawned and plugin workers start with none.
TEST_F(SharedBufferInPools, OnlyAForkedWorkerInheritsTheBuffersAliveWhenItStarted) {
  ferry::shared_buffer before(1 << 16);
  ferry::process_pool pool(options(1));
  const int pid = ferry_test::start_one_worker(pool);
  const std::size_t inherited = buffer_mappings(std::to_string(pid));
  EXPECT_EQ(inherited, ferry_test::method() == ferry::start_method::fork ? 1u : 0u);
}
