// Copyright ferry authors.
//
// src/executor/pool/pool_actors.cc: how the pool routes an actor's tasks:
// its constructor call to an idle worker holding no actor first, its calls
// to that worker alone, at most one queued behind the running call, the
// rest kept in the pool where a cancel still takes them back. The workers
// are threads of this test (start_method::in_process), so a call can tell
// the test, through memory, that it runs. What actors do across start
// methods and deaths is actors_test.cc's.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <executor/executor.h>

namespace {

using namespace std::chrono_literals;

struct tally {
  int n = 0;
};

// Held by a call until the test lets it go (at most 10 s).
std::atomic<bool> call_running{false};
std::atomic<bool> call_released{false};

ferry::process_pool in_process_pool(std::size_t workers) {
  ferry::pool_options o;
  o.max_workers = workers;
  o.start = ferry::start_method::in_process;
  return ferry::process_pool(o);
}

template <class T>
T within(ferry::future<T>& f) {
  EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
  return f.get();
}

TEST(PoolActors, AnActorsConstructorGoesToAnIdleWorkerHoldingNoActorFirst) {
  auto pool = in_process_pool(2);
  // Both workers started and idle.
  std::vector<ferry::future<int>> warm;
  for (int i = 0; i < 2; ++i)
    warm.push_back(pool.submit([](int) { std::this_thread::sleep_for(50ms); return static_cast<int>(::gettid()); }, i));
  for (auto& f : warm) within(f);
  ASSERT_EQ(pool.worker_pids().size(), 2u);
  auto a = pool.make_actor<tally>();
  auto a_home = a.call([](tally&) { return static_cast<int>(::gettid()); });
  const int a_tid = within(a_home);
  auto b = pool.make_actor<tally>();
  auto b_home = b.call([](tally&) { return static_cast<int>(::gettid()); });
  EXPECT_NE(within(b_home), a_tid) << "both actors on one worker while the other held none";
}

TEST(PoolActors, AnActorsCallsAllRunOnTheWorkerThatMadeIt) {
  auto pool = in_process_pool(2);
  auto a = pool.make_actor<tally>();
  std::vector<ferry::future<int>> calls, plain;
  for (int i = 0; i < 20; ++i) {
    calls.push_back(a.call([](tally&) { return static_cast<int>(::gettid()); }));
    plain.push_back(pool.submit([](int) { return static_cast<int>(::gettid()); }, i));
  }
  const int home = within(calls.front());
  for (auto& f : calls) EXPECT_EQ(within(f), home);
  for (auto& f : plain) within(f);
}

TEST(PoolActors, ACallStillInThePoolIsCancelledAndNeverRuns) {
  auto pool = in_process_pool(1);
  auto a = pool.make_actor<tally>();
  call_running = false;
  call_released = false;
  auto held = a.call([](tally& t) {
    call_running = true;
    for (int i = 0; i < 10000 && !call_released; ++i) std::this_thread::sleep_for(1ms);
    return ++t.n;
  });
  for (int i = 0; i < 10000 && !call_running; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(call_running);
  std::this_thread::sleep_for(5ms);  // running long enough that one call at most is sent behind it
  auto behind = a.call([](tally& t) { return ++t.n; });
  auto kept = a.call([](tally& t) { return ++t.n; });
  auto last = a.call([](tally& t) { return ++t.n; });
  EXPECT_TRUE(kept.cancel()) << "a call kept in the pool could not be cancelled";
  call_released = true;
  EXPECT_EQ(within(held), 1);
  EXPECT_EQ(within(behind), 2);
  EXPECT_THROW(kept.get(), ferry::cancelled_error);
  EXPECT_EQ(within(last), 3) << "the cancelled call ran";
}

}  // namespace
