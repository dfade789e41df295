// Copyright ferry authors.
//
// Futures that compose (include/executor/compose.h, future::then,
// wait_all_or_first_exception) on a process_pool, once per start method:
// where continuations run, that a slow one holds up no pool, and how each
// composition carries values and exceptions.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;

using Compose = ferry_test::ExecutorTest;
using ferry_test::expect_error;
using ferry_test::get_within;
using ferry_test::options;

namespace {

ferry::future<int> sum_of_squares(ferry::process_pool& pool, std::thread::id* resumed_on) {
  const int a = co_await pool.submit(test_tasks::add(), 3, 4);   // 7
  const int b = co_await pool.submit(test_tasks::scale(2), 10);  // 20
  *resumed_on = std::this_thread::get_id();
  co_return a * a + b * b;
}

ferry::future<int> awaits_a_failure(ferry::process_pool& pool) {
  const int never = co_await pool.submit(test_tasks::throw_std(), std::string("out_of_range"));
  co_return never;
}

ferry::future<void> awaits_nothing_pending() {
  co_return;
}

}  // namespace

TEST_F(Compose, ThenRunsOnTheContinuationThreadWithTheFinishedFuture) {
  ferry::process_pool pool(options(2));
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
  auto next = pool.submit(test_tasks::add(), 2, 3).then([&ran_on](const ferry::future<int>& f) {
    ran_on = std::this_thread::get_id();
    EXPECT_TRUE(f.ready());
    return std::to_string(f.get() * 10);
  });
  EXPECT_EQ(get_within(next), "50");
  EXPECT_NE(ran_on, caller);
}

TEST_F(Compose, ThenOnAFinishedFutureStillRunsOnTheContinuationThread) {
  ferry::process_pool pool(options(1));
  auto done = pool.submit(test_tasks::add(), 1, 1);
  ASSERT_EQ(get_within(done), 2);
  const std::thread::id caller = std::this_thread::get_id();
  auto next = done.then([](const ferry::future<int>&) { return std::this_thread::get_id(); });
  EXPECT_NE(get_within(next), caller);
}

TEST_F(Compose, AContinuationSeesTheTasksExceptionAndWhatItThrowsFailsItsFuture) {
  ferry::process_pool pool(options(1));
  auto failed = pool.submit(test_tasks::throw_std(), std::string("out_of_range"));
  auto saw = failed.then([](const ferry::future<int>& f) { return f.has_exception(); });
  EXPECT_TRUE(get_within(saw));
  auto rethrown = failed.then([](const ferry::future<int>& f) { return f.get() + 1; });
  expect_error<std::out_of_range>([&] { get_within(rethrown); });
  EXPECT_TRUE(rethrown.has_exception());
  auto own = pool.submit(test_tasks::add(), 1, 2).then([](const ferry::future<int>&) -> int {
    throw std::length_error("from the continuation");
  });
  const auto e = expect_error<std::length_error>([&] { get_within(own); });
  EXPECT_STREQ(e.what(), "from the continuation");
}

TEST_F(Compose, ABlockedContinuationHoldsUpNoPool) {
  ferry::process_pool pool(options(2));
  ferry_test::expect_results_while_a_continuation_blocks(pool);
}

TEST_F(Compose, AContinuationWaitingForAnotherContinuationDoesNotWaitForItself) {
  ferry::process_pool pool(options(2));
  auto outer = pool.submit(test_tasks::add(), 1, 2).then([&pool](const ferry::future<int>& f) {
    // Queued behind this one on the same thread: get() runs it meanwhile.
    auto inner = pool.submit(test_tasks::add(), f.get(), 10).then(
        [](const ferry::future<int>& g) { return g.get() * 2; });
    return inner.get();
  });
  EXPECT_EQ(get_within(outer), 26);
}

TEST_F(Compose, ContinuationsChainAndAVoidOneFinishes) {
  ferry::process_pool pool(options(1));
  std::atomic<int> seen{0};
  auto last = pool.submit(test_tasks::add(), 2, 2)
                  .then([](const ferry::future<int>& f) { return f.get() * 3; })
                  .then([&seen](const ferry::future<int>& f) { seen = f.get(); });
  get_within(last);
  EXPECT_EQ(seen.load(), 12);
  EXPECT_FALSE(last.has_exception());
}

TEST_F(Compose, CancellingAContinuationsFutureBeforeItRunsKeepsItFromRunning) {
  ferry::process_pool pool(options(1));
  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  auto source = pool.submit(test_tasks::add(), 1, 1);
  auto holder = source.then([&entered, released](const ferry::future<int>&) {
    entered.set_value();
    released.wait_for(30s);
  });
  ASSERT_EQ(entered.get_future().wait_for(30s), std::future_status::ready);
  std::atomic<bool> ran{false};
  auto queued = source.then([&ran](const ferry::future<int>&) {
    ran = true;
    return 1;
  });
  EXPECT_TRUE(queued.cancel());
  release.set_value();
  get_within(holder);
  expect_error<ferry::cancelled_error>([&] { get_within(queued); });
  auto after = source.then([](const ferry::future<int>& f) { return f.get(); });
  EXPECT_EQ(get_within(after), 2);  // the thread went on past the cancelled one
  EXPECT_FALSE(ran.load());
}

TEST_F(Compose, WhenAllHoldsEveryFutureFinishedWithItsOwnOutcome) {
  ferry::process_pool pool(options(2));
  std::vector<ferry::future<int>> futures;
  for (int i = 0; i < 4; ++i) futures.push_back(pool.submit(test_tasks::add(), i, 100));
  futures.push_back(pool.submit(test_tasks::throw_std(), std::string("out_of_range")));
  auto all = ferry::when_all(futures);
  const std::vector<ferry::future<int>> done = get_within(all);
  ASSERT_EQ(done.size(), 5u);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(done[i].ready());
    EXPECT_EQ(done[i].get(), i + 100);
  }
  EXPECT_TRUE(done[4].has_exception());
  EXPECT_FALSE(all.has_exception());
  auto none = ferry::when_all(std::vector<ferry::future<int>>{});
  EXPECT_TRUE(none.ready());
  EXPECT_TRUE(none.get().empty());
}

TEST_F(Compose, WhenAllOfDifferentTypesGivesATuple) {
  ferry::process_pool pool(options(2));
  auto both = ferry::when_all(pool.submit(test_tasks::add(), 1, 2),
                              pool.submit(test_tasks::greet("hi"), std::string("you")));
  auto [number, text] = get_within(both);
  EXPECT_EQ(number.get(), 3);
  EXPECT_EQ(text.get(), "hi, you");
}

TEST_F(Compose, WhenAnyGivesTheFirstFinishedAndEveryInput) {
  ferry::process_pool pool(options(2));
  auto slow = pool.submit(test_tasks::sleep_ms(), 1500);
  auto quick = pool.submit(test_tasks::sleep_ms(), 10);
  auto any = ferry::when_any(std::vector<ferry::future<int>>{slow, quick});
  const auto first = get_within(any);
  EXPECT_EQ(first.index, 1u);
  ASSERT_EQ(first.futures.size(), 2u);
  EXPECT_TRUE(first.futures[1].ready());
  EXPECT_FALSE(first.futures[0].ready());
  EXPECT_TRUE(slow.cancel() || get_within(slow) > 0);
  expect_error<ferry::error>([] { ferry::when_any(std::vector<ferry::future<int>>{}); });
}

TEST_F(Compose, ACoroutineAwaitsTasksWithoutBlockingTheCaller) {
  ferry::process_pool pool(options(2));
  std::thread::id resumed_on;
  auto result = sum_of_squares(pool, &resumed_on);  // returns at its first co_await
  EXPECT_EQ(get_within(result), 7 * 7 + 20 * 20);
  EXPECT_NE(resumed_on, std::this_thread::get_id());
}

TEST_F(Compose, ACoroutinesExceptionFailsItsFuture) {
  ferry::process_pool pool(options(1));
  auto result = awaits_a_failure(pool);
  expect_error<std::out_of_range>([&] { get_within(result); });
  auto nothing = awaits_nothing_pending();  // finished without suspending
  EXPECT_TRUE(nothing.ready());
  EXPECT_NO_THROW(nothing.get());
}

TEST_F(Compose, WaitAllOrFirstExceptionReturnsAtTheFirstFailure) {
  ferry::process_pool pool(options(2));
  std::vector<ferry::future<int>> futures{pool.submit(test_tasks::sleep_ms(), 1500),
                                          pool.submit(test_tasks::throw_std(), std::string("out_of_range"))};
  EXPECT_EQ(ferry::wait_all_or_first_exception(futures), 1u);
  EXPECT_FALSE(futures[0].ready());
  std::vector<ferry::future<int>> fine{pool.submit(test_tasks::add(), 1, 1), pool.submit(test_tasks::add(), 2, 2)};
  EXPECT_EQ(ferry::wait_all_or_first_exception(fine), 2u);
  EXPECT_TRUE(fine[0].ready() && fine[1].ready());
  futures[0].cancel();
}

TEST_F(Compose, WaitAllOrFirstExceptionGivesUpAtItsTimeout) {
  ferry::process_pool pool(options(1));
  std::vector<ferry::future<int>> futures{pool.submit(test_tasks::sleep_ms(), 2000)};
  EXPECT_EQ(ferry::wait_all_or_first_exception(futures, 50ms), std::nullopt);
  EXPECT_EQ(ferry::wait_all_or_first_exception(futures, 30s), std::optional<std::size_t>(1));
}

TEST_F(Compose, AFutureAsAnArgumentSendsTheTaskOnceItIsFinished) {
  ferry::process_pool pool(options(2));
  auto first = pool.submit(test_tasks::sleep_ms(), 200);  // returns its worker's pid
  auto second = pool.submit(test_tasks::add(), first, 7);
  EXPECT_FALSE(second.ready());
  const int sum = get_within(second);
  ASSERT_TRUE(first.ready());
  EXPECT_EQ(sum, first.get() + 7);
}

TEST_F(Compose, AForwardedResultArrivesWholeAsTheDependentTasksArgument) {
  ferry::process_pool pool(options(2));
  auto made = pool.submit(test_tasks::make_string(), std::size_t{3} << 20);  // in shared memory
  auto counted = pool.submit(test_tasks::length(), made);
  EXPECT_EQ(get_within(counted), std::size_t{3} << 20);
  auto small = pool.submit(test_tasks::greet("hello"), std::string("you"));
  auto longer = pool.submit(test_tasks::length(), small);  // inline
  EXPECT_EQ(get_within(longer), std::string("hello, you").size());
}

TEST_F(Compose, AFailedInputFailsTheDependentTaskWithItsExceptionAndSendsNothing) {
  ferry::process_pool pool(options(1));
  auto failed = pool.submit(test_tasks::throw_std(), std::string("out_of_range"));
  auto dependent = pool.submit(test_tasks::add(), failed, 1);
  expect_error<std::out_of_range>([&] { get_within(dependent); });
  auto crashed = pool.submit(test_tasks::crash(), std::string("segv"));
  auto after_crash = pool.submit(test_tasks::add(), crashed, 1);
  expect_error<ferry::worker_died_error>([&] { get_within(after_crash); });
}

TEST_F(Compose, ContinuationsFeedDependentTasksToo) {
  ferry::process_pool pool(options(2));
  auto doubled = pool.submit(test_tasks::add(), 2, 3).then([](const ferry::future<int>& f) { return 2 * f.get(); });
  auto plus = pool.submit(test_tasks::add(), doubled, pool.submit(test_tasks::add(), 1, 1));
  EXPECT_EQ(get_within(plus), 12);
}

TEST_F(Compose, ADependentTaskCancelledBeforeItsInputFinishesIsNeverSent) {
  ferry::process_pool pool(options(1));
  auto slow = pool.submit(test_tasks::sleep_ms(), 300);
  auto input = pool.submit(test_tasks::add(), slow, 0);
  auto dependent = pool.submit(test_tasks::sleep_ms(), input);  // would sleep for about a pid's ms
  EXPECT_TRUE(dependent.cancel());
  expect_error<ferry::cancelled_error>([&] { get_within(dependent); });
  EXPECT_GT(get_within(input), 0);
  const auto start = std::chrono::steady_clock::now();
  ferry_test::expect_pool_serves(pool);  // not behind a long sleep
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

TEST_F(Compose, ADependentTaskWaitingAtShutdownFailsWithPoolShutdown) {
  ferry::process_pool pool(options(1));
  auto slow = pool.submit(test_tasks::sleep_ms(), 300);
  auto dependent = pool.submit(test_tasks::add(), slow, 1);
  pool.shutdown();  // waits for `slow`; `dependent` is not the pool's yet
  expect_error<ferry::pool_shutdown_error>([&] { get_within(dependent); });
  EXPECT_THROW(pool.submit(test_tasks::add(), slow, 1), ferry::pool_shutdown_error);
}
