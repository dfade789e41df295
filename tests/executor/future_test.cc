// Copyright ferry authors.
//
// Futures: waiting, callbacks, wait_any, cancel.
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
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
#include "waits_in_callbacks.h"

using namespace std::chrono_literals;

using ferry_test::method;
using ferry_test::options;
using Future = ferry_test::ExecutorTest;

TEST_F(Future, WaitingAndCallbacks) {
  ferry::process_pool pool(options(2));
  auto slow = pool.submit(test_tasks::sleep_ms(), 400);
  EXPECT_EQ(slow.wait_for(10ms), std::future_status::timeout);
  EXPECT_FALSE(slow.ready());
  std::atomic<int> called{0};
  slow.on_done([&](const ferry::future<int>& f) { called += f.get() > 0; });
  std::vector<ferry::future<int>> futures = {pool.submit(test_tasks::sleep_ms(), 300),
                                             pool.submit(test_tasks::sleep_ms(), 10)};
  std::vector<int> order;
  for (const ferry::future<int>& f : ferry::as_completed(futures)) order.push_back(f.get());
  EXPECT_EQ(order.size(), 2u);
  EXPECT_FALSE(ferry::wait_all(std::array{slow, pool.submit(test_tasks::sleep_ms(), 300)}, 1ms));
  ferry::wait_all(std::array{slow});
  EXPECT_TRUE(slow.ready());
  // Callbacks run on the manager thread after waiters are released.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (called.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(called.load(), 1);
}

// Issue: a callback that threw on the manager thread failed another task
// with its exception and shut the pool down; one given to a finished
// future threw at the caller. Both are now dropped, as Python's
// add_done_callback drops them, and a second callback still runs.
TEST_F(Future, ACallbackThatThrowsIsDroppedAndThePoolAndTheOtherCallbacksGoOn) {
  ferry::process_pool pool(options(1));
  auto slow = pool.submit(test_tasks::sleep_ms(), 100);
  std::atomic<int> after{0};
  slow.on_done([](const ferry::future<int>&) { throw std::runtime_error("callback broke"); });
  slow.on_done([&](const ferry::future<int>&) { ++after; });
  auto next = pool.submit(test_tasks::add(), 1, 2);
  EXPECT_EQ(ferry_test::get_within(next), 3) << "the callback's exception reached another task";
  EXPECT_GT(ferry_test::get_within(slow), 0);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (after.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(after.load(), 1);
  EXPECT_NO_THROW(slow.on_done([](const ferry::future<int>&) { throw std::runtime_error("late callback broke"); }));
  auto last = pool.submit(test_tasks::add(), 2, 2);
  EXPECT_EQ(ferry_test::get_within(last), 4) << "the pool was shut down";
}

// It waited forever: the pool's loop stopped in the callback, and with it
// every later task (tests/executor/waits_in_callbacks.h).
TEST_F(Future, ACallbacksWaitForATaskOfItsOwnPoolThrowsRatherThanWaitingForever) {
  ferry::process_pool pool(options(1));
  ferry_test::expect_a_callbacks_wait_for_its_own_pools_task_to_throw(pool);
}

TEST_F(Future, ACallbackMayWaitForAFinishedTaskOrOneOfAnotherPool) {
  ferry::process_pool pool(options(1));
  ferry::process_pool other(options(1));
  ferry_test::expect_a_callbacks_wait_for_a_finished_task_or_another_pools_to_return(pool, other);
}

TEST_F(Future, WaitAnyReturnsTheFirstFinished) {
  ferry::process_pool pool(options(2));
  std::vector<ferry::future<int>> futures = {pool.submit(test_tasks::sleep_ms(), 1500),
                                             pool.submit(test_tasks::sleep_ms(), 10)};
  EXPECT_EQ(ferry::wait_any(futures), 1u);
  EXPECT_EQ(ferry::wait_any(std::vector{futures[0]}, 1ms), std::nullopt);
  EXPECT_EQ(ferry::wait_any(futures, 1ms), std::optional<std::size_t>(1));
}

// as_completed yielded a future given twice twice, so a loop over it got
// that result twice; Python's as_completed yields such a future once.
TEST_F(Future, AsCompletedYieldsAFutureGivenTwiceOnce) {
  ferry::process_pool pool(options(2));
  const ferry::future<int> slow = pool.submit(test_tasks::sleep_ms(), 300);
  const ferry::future<int> quick = pool.submit(test_tasks::add(), 1, 2);
  const ferry::future<int> copy = quick;  // a copy shares its state
  std::vector<int> results;
  for (const ferry::future<int>& f : ferry::as_completed(std::vector{quick, slow, copy, slow, quick}))
    results.push_back(f.get());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0], 3);
  EXPECT_EQ(results[1], slow.get());
  // Futures without a state are each a mistake, as before: the range throws.
  EXPECT_THROW((void)ferry::as_completed(std::vector{quick, ferry::future<int>{}, ferry::future<int>{}}),
               ferry::error);
}

// as_completed had no timeout, so a loop over it could not be bounded;
// Python's as_completed(fs, timeout) raises TimeoutError at the next
// future not finished in time, counted from the call, and ends.
TEST_F(Future, AsCompletedWithATimeoutThrowsWhereTheNextIsLateAndEndsThere) {
  ferry::process_pool pool(options(2));
  ferry::future<int> quick = pool.submit(test_tasks::add(), 1, 2);
  const ferry::future<int> slow = pool.submit(test_tasks::sleep_ms(), 3000);
  ASSERT_EQ(ferry_test::get_within(quick), 3);
  const auto start = std::chrono::steady_clock::now();
  auto order = ferry::as_completed(std::vector{slow, quick}, 300ms);
  auto it = order.begin();
  ASSERT_FALSE(it == order.end());
  EXPECT_EQ((*it).get(), 3);
  const auto e = ferry_test::expect_error<ferry::wait_timeout_error>([&] { ++it; });
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_NE(std::string(e.what()).find("1 of 2 futures had not finished"), std::string::npos) << e.what();
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 2500ms) << "it waited for the slow task";
  EXPECT_TRUE(it == order.end());
  EXPECT_FALSE(slow.ready());
  // Without the wait: a timeout of zero throws at once, after the finished.
  std::vector<int> got;
  EXPECT_THROW(
      for (const ferry::future<int>& f : ferry::as_completed(std::vector{quick, slow}, 0ms)) got.push_back(f.get()),
      ferry::wait_timeout_error);
  EXPECT_EQ(got, std::vector<int>{3});
  // Long enough, it is the range without a timeout.
  got.clear();
  for (const ferry::future<int>& f : ferry::as_completed(std::vector{quick}, std::chrono::hours::max()))
    got.push_back(f.get());
  EXPECT_EQ(got, std::vector<int>{3});
}

TEST_F(Future, CancelOnlyBeforeSending) {
  ferry::process_pool pool(options(1));
  // A ready worker first: the waits below time the tasks, not a worker's
  // start (hundreds of ms for a spawned test program under ASan).
  EXPECT_GT(pool.submit(test_tasks::pid()).get(), 0);
  auto running = pool.submit(test_tasks::sleep_ms(), 300);
  auto sent = pool.submit(test_tasks::add(), 1, 1);    // queued in the busy worker
  auto queued = pool.submit(test_tasks::add(), 2, 2);  // still in the pool
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(running.cancel());
  EXPECT_FALSE(sent.cancel());
  EXPECT_TRUE(queued.cancel());
  EXPECT_THROW(queued.get(), ferry::cancelled_error);
  EXPECT_GT(running.get(), 0);
  EXPECT_EQ(sent.get(), 2);
}


// A future without a state (default-constructed, or moved from) is a
// caller's mistake that ferry can see: every call but valid() says so,
// naming the call, rather than dereferencing nothing (it crashed before).
TEST_F(Future, EveryCallButValidOnAFutureWithoutAStateThrowsNamingTheCall) {
  ferry::process_pool pool(options(1));
  ferry::future<int> empty;
  ferry::future<int> task = pool.submit(test_tasks::add(), 1, 2);
  ferry::future<int> moved_to = std::move(task);
  EXPECT_EQ(moved_to.get(), 3);
  for (ferry::future<int>* f : {&empty, &task}) {
    EXPECT_FALSE(f->valid());
    auto says = [](const char* call, auto&& fn) {
      const auto e = ferry_test::expect_error<ferry::error>(fn);
      EXPECT_NE(std::string(e.what()).find(call), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("only valid() may be called"), std::string::npos) << e.what();
    };
    says("future::get()", [&] { (void)f->get(); });
    says("future::wait()", [&] { f->wait(); });
    says("future::wait_for()", [&] { (void)f->wait_for(1ms); });
    says("future::ready()", [&] { (void)f->ready(); });
    says("future::has_exception()", [&] { (void)f->has_exception(); });
    says("future::cancel()", [&] { (void)f->cancel(); });
    says("future::cancel()", [&] { (void)f->cancel(10ms); });
    says("future::on_done()", [&] { f->on_done([](const ferry::future<int>&) {}); });
    says("future::then()", [&] { (void)f->then([](const ferry::future<int>& g) { return g.get(); }); });
    says("submit with a future argument", [&] { (void)pool.submit(test_tasks::add(), *f, 1); });
  }
  EXPECT_EQ(pool.submit(test_tasks::add(), 2, 2).get(), 4);  // the pool is untouched
}

// wait_any of nothing has nothing to return and would wait forever: it
// throws, as when_any does.
TEST_F(Future, WaitAnyOfNoFuturesThrowsAFerryErrorRatherThanWaitingForever) {
  const std::vector<ferry::future<int>> none;
  EXPECT_THROW((void)ferry::wait_any(none), ferry::error);
  EXPECT_THROW((void)ferry::wait_any(none, 1s), ferry::error);
  EXPECT_THROW((void)ferry::when_any(none), ferry::error);
}

// fork() copies a pool and its futures into the child, but not the manager
// thread, the workers or the threads that finish futures: a submit there
// was queued and its get() waited forever. Now each use that could only
// wait throws, naming the cause; a future finished before the fork still
// gives its value, and the parent's pool is untouched.
TEST_F(Future, APoolAndItsFuturesUsedInAForkedChildThrowInsteadOfWaitingForever) {
  ferry::process_pool pool(options(1));
  auto done = pool.submit(test_tasks::add(), 1, 2);
  ASSERT_EQ(ferry_test::get_within(done), 3);
  auto pending = pool.submit(test_tasks::sleep_ms(), 1500);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // No gtest here: each expectation is a bit of the exit status.
    const auto refused = [](auto&& use) {
      try {
        use();
      } catch (const ferry::error& e) {
        return std::string(e.what()).find("made before fork() was used in the child") != std::string::npos;
      } catch (...) {
      }
      return false;
    };
    int failed = 0;
    if (!refused([&] { pool.submit(test_tasks::add(), 1, 1); })) failed |= 1;
    if (!refused([&] { pending.wait_for(std::chrono::seconds(5)); })) failed |= 2;
    if (!refused([&] { pending.get(); })) failed |= 4;
    if (!refused([&] { pending.then([](const ferry::future<int>& f) { return f.get(); }); })) failed |= 8;
    if (done.get() != 3) failed |= 16;
    ::_exit(failed);
  }
  int status = 0;
  for (int i = 0; i < 300 && ::waitpid(child, &status, WNOHANG) == 0; ++i) std::this_thread::sleep_for(50ms);
  if (::waitpid(child, &status, WNOHANG) == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "the child hung";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "bits: 1 submit, 2 wait_for, 4 get, 8 then, 16 a finished value";
  EXPECT_GT(ferry_test::get_within(pending), 0);
  auto after = pool.submit(test_tasks::add(), 2, 2);
  EXPECT_EQ(ferry_test::get_within(after), 4);
}
