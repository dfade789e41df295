// Copyright ferry authors.
//
// Actors (executor/actor.h), for the process pool's and the MPI pool's
// tests alike: concurrent callers each counted once, calls in the order
// made, a call's exception, a constructor's exception, the worker's death
// with and without restarts.
#ifndef FERRY_TESTS_EXECUTOR_ACTORS_H_
#define FERRY_TESTS_EXECUTOR_ACTORS_H_

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

namespace ferry_test {

// Four threads add 1 to one counter 250 times each, without waiting: every
// increment is counted once, and each thread's results rise, its calls
// having run in the order it made them.
template <class Pool>
void expect_concurrent_callers_each_counted_once(Pool& pool) {
  auto c = test_tasks::make_counter(pool, 0);
  constexpr int threads = 4, calls = 250;
  std::vector<std::vector<ferry::future<int>>> made(threads);
  std::vector<std::thread> callers;
  for (int t = 0; t < threads; ++t)
    callers.emplace_back([&, t] {
      for (int i = 0; i < calls; ++i) made[t].push_back(test_tasks::counter_add(c, 1));
    });
  for (auto& t : callers) t.join();
  std::vector<int> seen;
  for (auto& mine : made) {
    int last = 0;
    for (auto& f : mine) {
      const int now = get_within(f, std::chrono::seconds(60));
      EXPECT_GT(now, last) << "a thread's calls ran in the order it made them";
      last = now;
      seen.push_back(now);
    }
  }
  std::sort(seen.begin(), seen.end());
  for (int i = 0; i < threads * calls; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], i + 1);
  auto total = test_tasks::counter_add(c, 0);
  EXPECT_EQ(get_within(total), threads * calls);
}

// A call's exception is its future's; the object lives on. A constructor's
// exception is every call's.
template <class Pool>
void expect_exceptions_of_calls_and_constructors(Pool& pool) {
  auto c = test_tasks::make_counter(pool, 10);
  auto failed = test_tasks::counter_fail(c);
  const auto e = expect_error<std::runtime_error>([&] { get_within(failed); });
  EXPECT_STREQ(e.what(), "counter refused");
  auto after = test_tasks::counter_add(c, 1);
  EXPECT_EQ(get_within(after), 11);

  auto r = test_tasks::make_refusing(pool);
  auto poked = test_tasks::refusing_poke(r);
  const auto why = expect_error<std::invalid_argument>([&] { get_within(poked); });
  EXPECT_STREQ(why.what(), "refusing");
  auto again = test_tasks::refusing_poke(r);
  EXPECT_THROW(get_within(again), std::invalid_argument);
}

// The worker dies: the call it ran fails with worker_died_error, and,
// without restarts, so does every later call.
template <class Pool>
void expect_a_dead_actors_calls_to_fail(Pool& pool) {
  auto c = test_tasks::make_counter(pool, 0);
  auto one = test_tasks::counter_add(c, 1);
  EXPECT_EQ(get_within(one), 1);
  auto crash = test_tasks::counter_crash(c);
  auto queued = test_tasks::counter_add(c, 1);  // made before the death is known
  EXPECT_THROW(get_within(crash), ferry::worker_died_error);
  EXPECT_THROW(get_within(queued), ferry::worker_died_error);
  auto later = test_tasks::counter_add(c, 1);
  const auto e = expect_error<ferry::worker_died_error>([&] { get_within(later); });
  expect_message(e, "actor");
  // The pool itself goes on.
  auto other = test_tasks::make_counter(pool, 5);
  auto fine = test_tasks::counter_add(other, 1);
  EXPECT_EQ(get_within(fine), 6);
}

// With a restart: the actor is made again from its constructor's
// arguments, in another process, and the calls made after the crash run
// there; a second crash with no restart left ends it.
template <class Pool>
void expect_a_restarted_actor_to_run_the_later_calls(Pool& pool) {
  auto c = test_tasks::make_counter(pool, 100, 1);
  auto first = test_tasks::counter_pid(c);
  const int before = get_within(first);
  auto add = test_tasks::counter_add(c, 5);
  EXPECT_EQ(get_within(add), 105);
  auto crash = test_tasks::counter_crash(c);
  auto after = test_tasks::counter_add(c, 1);
  auto where = test_tasks::counter_pid(c);
  EXPECT_THROW(get_within(crash), ferry::worker_died_error);
  EXPECT_EQ(get_within(after), 101) << "made again from its constructor's arguments";
  EXPECT_NE(get_within(where), before);
  auto again = test_tasks::counter_crash(c);
  EXPECT_THROW(get_within(again), ferry::worker_died_error);
  auto gone = test_tasks::counter_add(c, 1);
  EXPECT_THROW(get_within(gone), ferry::worker_died_error);
}

// A call naming a member, call<&T::f>(args...), runs it on the object as
// a lambda's call does: a member function, one returning a reference (its
// copy comes back), one given a string literal, a data member, a member
// of a base; a lambda's call then sees what they did.
template <class Pool>
void expect_member_calls_to_run_on_the_object(Pool& pool) {
  auto c = test_tasks::make_counter(pool, 0);
  EXPECT_EQ(test_tasks::counter_member_calls(c, 5), "5 ledger 5 1");
  auto after = test_tasks::counter_add(c, 1);
  EXPECT_EQ(get_within(after), 6);
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_ACTORS_H_
