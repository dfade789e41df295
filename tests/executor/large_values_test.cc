// Copyright ferry authors.
//
// Large arguments and results by value through a process pool: their
// bodies travel in shared memory that each connection reuses
// (src/executor/wire/reusable_memory_linux.h). Every value keeps its own bytes
// whether its memory is reused or not, also when results are held, and a
// worker dying with a large argument fails only its task.
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

using ferry_test::expect_error;
using ferry_test::get_within;
using ferry_test::options;
using LargeValues = ferry_test::ExecutorTest;

namespace {

// Bytes that differ from value to value and along each one, so that a body
// left over from an earlier task is never mistaken for this one.
std::string value_of(std::size_t size, int seed) {
  std::string v(size, '\0');
  for (std::size_t i = 0; i < size; ++i) v[i] = static_cast<char>((i * 31 + static_cast<std::size_t>(seed) * 7) % 253);
  return v;
}

constexpr std::size_t mib = std::size_t{1} << 20;  // the default shared_memory_threshold

// How many values a test sends in turn. A sanitizer checks every byte
// copied (under ThreadSanitizer the first test's 12 values took 19 s), so
// there half as many go, each still of the sizes whose paths it tests.
constexpr int in_turn(int values) { return ferry_test::under_sanitizer ? values / 2 : values; }

}  // namespace

TEST_F(LargeValues, LargeValuesGotOneAfterAnotherEachKeepTheirOwnBytes) {
  ferry::process_pool pool(options(1));
  for (int i = 0; i < in_turn(12); ++i) {
    // Sizes go up and down: files are reused, and replaced by larger ones.
    const std::string v = value_of((i % 3 == 2 ? 5 : 2) * mib + static_cast<std::size_t>(i) * 4096, i);
    auto f = pool.submit(test_tasks::echo(), v);
    EXPECT_EQ(get_within(f), v) << "value " << i;
  }
}

TEST_F(LargeValues, ManyLargeResultsHeldAtOnceEachKeepTheirOwnBytes) {
  ferry::process_pool pool(options(2));
  std::vector<std::string> sent;
  std::vector<ferry::future<std::string>> held;
  // More than a connection's reusable files: the rest go in sealed ones.
  for (int i = 0; i < 12; ++i) {
    sent.push_back(value_of(2 * mib, i));
    held.push_back(pool.submit(test_tasks::echo(), sent.back()));
  }
  for (std::size_t i = held.size(); i-- > 0;) EXPECT_EQ(get_within(held[i]), sent[i]) << "value " << i;
  // Once they are dropped, large values still travel, in reused memory.
  held.clear();
  const std::string last = value_of(3 * mib, 99);
  auto f = pool.submit(test_tasks::echo(), last);
  EXPECT_EQ(get_within(f), last);
}

// A large task's body memory is kept for the next large task to be encoded
// into (src/executor/core/spare_body.h), and handed back by a small task
// that took it: large and small tasks from two threads at once, in turn,
// each get their own value back.
TEST_F(LargeValues, LargeAndSmallTasksFromTwoThreadsInTurnEachKeepTheirOwnBytes) {
  ferry::process_pool pool(options(2));
  auto run = [&](int thread, std::vector<bool>& ok) {
    for (int i = 0; i < in_turn(8); ++i) {
      const int seed = thread * 100 + i;
      const std::string v = i % 2 == 0 ? value_of(5 * mib + static_cast<std::size_t>(i) * 4096, seed)
                                       : value_of(100, seed);
      auto f = pool.submit(test_tasks::echo(), v);
      ok.push_back(get_within(f) == v);
    }
  };
  std::vector<bool> first, second;
  std::thread other([&] { run(1, second); });
  run(0, first);
  other.join();
  EXPECT_EQ(std::count(first.begin(), first.end(), true), in_turn(8));
  EXPECT_EQ(std::count(second.begin(), second.end(), true), in_turn(8));
}

TEST_F(LargeValues, AWorkerDyingWithALargeArgumentFailsOnlyItsTask) {
  ferry::process_pool pool(options(1));
  const std::string before = value_of(2 * mib, 1);
  auto first = pool.submit(test_tasks::echo(), before);
  EXPECT_EQ(get_within(first), before);
  auto dies = pool.submit(test_tasks::abort_holding(), value_of(2 * mib, 2));
  const auto e = expect_error<ferry::worker_died_error>([&] { get_within(dies); });
  EXPECT_NE(std::string(e.what()).find("SIGABRT"), std::string::npos) << e.what();
  // The new worker gets its large values through memory of its own.
  const std::string after = value_of(4 * mib, 3);
  auto next = pool.submit(test_tasks::echo(), after);
  EXPECT_EQ(get_within(next), after);
}

namespace {

// Mappings and descriptors of reusable message files in process `pid`.
std::size_t reusable_files_in(int pid) {
  std::size_t n = 0;
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("memfd:ferry-reusable") != std::string::npos) ++n;
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  for (const auto& e : std::filesystem::directory_iterator(fds)) {
    std::error_code ec;
    if (std::filesystem::read_symlink(e.path(), ec).string().find("memfd:ferry-reusable") != std::string::npos) ++n;
  }
  return n;
}

// Process `pid`'s resident anonymous memory (RssAnon in its status).
std::size_t anonymous_resident_bytes(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("RssAnon:", 0) == 0) return std::stoul(line.substr(8)) * 1024;  // "RssAnon:  123 kB"
  ADD_FAILURE() << "no RssAnon for process " << pid;
  return 0;
}

}  // namespace

// A worker keeps the memory of its large values for the next task
// (src/executor/worker/kept_heap.h), and gives it back once it has waited a
// second for one: it held it for as long as it lived. (A sanitizer's
// allocator is not glibc's: there the worker's memory tells nothing.)
TEST_F(LargeValues, AnIdleWorkerGivesBackTheMemoryOfItsLargeValues) {
  SKIP_UNDER_SANITIZER(ferry_test::sanitizer_skip::allocator);
  if (ferry_test::method() == ferry::start_method::fork)
    GTEST_SKIP() << "a forked worker allocates in the arena of the thread that forked it, where glibc "
                    "maps each large block on its own and unmaps it when freed: nothing is kept";
  ferry::process_pool pool(options(1));
  const std::string v = value_of(48 * mib, 1);
  auto f = pool.submit(test_tasks::echo(), v);
  EXPECT_EQ(get_within(f), v);
  const int pid = pool.worker_pids().at(0);
  const std::size_t held = anonymous_resident_bytes(pid);
  EXPECT_GE(held, 48 * mib) << "kept for the next task";
  std::size_t now = held;
  for (int i = 0; i < 100 && now + 40 * mib > held; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    now = anonymous_resident_bytes(pid);
  }
  EXPECT_LT(now + 40 * mib, held) << "still held after 10 s idle";
  // And the next large task runs as before.
  const std::string w = value_of(48 * mib, 2);
  auto g = pool.submit(test_tasks::echo(), w);
  EXPECT_EQ(get_within(g), w);
}

// After a large task, the worker's wait before it gives memory back watches
// for new input: a task already read with the one before it (tasks sent in
// one write) must run at once, not after that wait.
TEST_F(LargeValues, SmallTasksQueuedAfterALargeOneRunWithoutWaiting) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit(test_tasks::make_string(), 48 * mib);
  EXPECT_EQ(get_within(f).size(), 48 * mib);
  for (int round = 0; round < 3; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<ferry::future<int>> small;
    for (int i = 0; i < 50; ++i) small.push_back(pool.submit(test_tasks::add(), i, 1));
    for (int i = 0; i < 50; ++i) EXPECT_EQ(get_within(small[static_cast<std::size_t>(i)]), i + 1);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(900)) << "round " << round;
  }
}

// A worker started while others hold large bodies (by fork, a copy of the
// pool's process) inherits none of their files, mapped or open: they would
// keep that memory alive for as long as it lives.
TEST_F(LargeValues, AWorkerStartedLaterHoldsNoneOfTheOthersLargeBodies) {
  ferry::process_pool pool(options(2));
  const std::string v = value_of(2 * mib, 5);
  auto a = pool.submit(test_tasks::echo(), v);
  auto b = pool.submit(test_tasks::echo(), v);
  EXPECT_EQ(get_within(a), v);  // both held: the pool keeps their mappings
  EXPECT_EQ(get_within(b), v);
  const std::vector<int> before = pool.worker_pids();
  auto dies = pool.submit(test_tasks::crash(), std::string("abort"));
  (void)expect_error<ferry::worker_died_error>([&] { get_within(dies); });
  // The replacement, started on demand: two tasks at once need both workers.
  int fresh = 0;
  for (int i = 0; i < 20 && fresh == 0; ++i) {
    auto p = pool.submit(test_tasks::sleep_ms(), 50);
    auto q = pool.submit(test_tasks::sleep_ms(), 50);
    for (const int pid : {get_within(p), get_within(q)})
      if (std::find(before.begin(), before.end(), pid) == before.end()) fresh = pid;
  }
  ASSERT_NE(fresh, 0) << "no replacement worker ran a task";
  EXPECT_EQ(reusable_files_in(fresh), 0u);
  EXPECT_GT(reusable_files_in(::getpid()), 0u);  // the pool's own are still there
}
