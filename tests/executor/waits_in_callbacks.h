// Copyright ferry authors.
//
// A future's callback runs on the thread that runs its pool's loop (the
// manager, or a thread that waits and helps): a wait there for another
// task of that pool could never end, as that task finishes only once the
// callback returns. For the process pool's and the MPI pool's tests alike.
#ifndef FERRY_TESTS_EXECUTOR_WAITS_IN_CALLBACKS_H_
#define FERRY_TESTS_EXECUTOR_WAITS_IN_CALLBACKS_H_

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

namespace ferry_test {

// What one wait made in the callback did: "threw: <what>", "timeout",
// "ready", or "returned".
struct waits_seen {
  std::string get, wait_any, as_completed, then, when_all, when_any, poll;
};

inline std::string outcome_of(const auto& wait) {
  try {
    wait();
    return "returned";
  } catch (const ferry::error& e) {
    return std::string("threw: ") + e.what();
  }
}

// In a callback of a task of `pool`, waits for a task of the same pool that
// has not finished, or a future made from it: get(), wait_any,
// as_completed, and get() of its then(), when_all and when_any throw
// ferry::error naming then(); wait_for(0s) only asks; the pool goes on.
template <class Pool>
void expect_a_callbacks_wait_for_its_own_pools_task_to_throw(Pool& pool) {
  using namespace std::chrono_literals;
  auto first = pool.submit(test_tasks::sleep_ms(), 50);
  auto second = pool.submit(test_tasks::sleep_ms(), 1500);
  auto said = std::make_shared<std::promise<waits_seen>>();
  std::future<waits_seen> seen = said->get_future();
  first.on_done([said, second](const ferry::future<int>&) {
    waits_seen s;
    s.get = outcome_of([&] { (void)second.get(); });
    s.wait_any = outcome_of([&] { (void)ferry::wait_any(std::vector{second}); });
    s.as_completed = outcome_of([&] {
      for (const auto& f : ferry::as_completed(std::vector{second})) (void)f;
    });
    s.then = outcome_of([&] { (void)second.then([](const ferry::future<int>& f) { return f.get(); }).get(); });
    s.when_all = outcome_of([&] { (void)ferry::when_all(std::vector{second}).get(); });
    s.when_any = outcome_of([&] { (void)ferry::when_any(std::vector{second}).get(); });
    s.poll = second.wait_for(0s) == std::future_status::timeout ? "timeout" : "ready";
    said->set_value(s);
  });
  EXPECT_GT(get_within(first), 0);
  ASSERT_EQ(seen.wait_for(30s), std::future_status::ready) << "the callback's wait did not end";
  const waits_seen s = seen.get();
  for (const std::string* w : {&s.get, &s.wait_any, &s.as_completed, &s.then, &s.when_all, &s.when_any}) {
    EXPECT_EQ(w->rfind("threw: ", 0), 0u) << *w;
    EXPECT_NE(w->find("runs its pool's loop"), std::string::npos) << *w;
    EXPECT_NE(w->find("then()"), std::string::npos) << *w;
  }
  EXPECT_NE(s.get.find("get()"), std::string::npos) << s.get;
  EXPECT_NE(s.wait_any.find("wait_any"), std::string::npos) << s.wait_any;
  EXPECT_EQ(s.poll, "timeout");
  EXPECT_GT(get_within(second), 0) << "the task waited for in the callback";
  auto next = pool.submit(test_tasks::add(), 1, 2);
  EXPECT_EQ(get_within(next), 3) << "the pool did not go on";
}

// A callback may wait for a task that has finished, for a task of another
// pool, whose own loop finishes it, and for any of tasks of both pools.
template <class Pool, class Other>
void expect_a_callbacks_wait_for_a_finished_task_or_another_pools_to_return(Pool& pool, Other& other) {
  using namespace std::chrono_literals;
  auto done = pool.submit(test_tasks::add(), 2, 2);
  EXPECT_EQ(get_within(done), 4);
  auto first = pool.submit(test_tasks::sleep_ms(), 50);
  auto later = pool.submit(test_tasks::sleep_ms(), 50);  // queued behind `first` (one worker)
  auto elsewhere = other.submit(test_tasks::sleep_ms(), 300);
  auto said = std::make_shared<std::promise<std::vector<std::string>>>();
  std::future<std::vector<std::string>> seen = said->get_future();
  first.on_done([said, done, later, elsewhere](const ferry::future<int>&) {
    said->set_value({outcome_of([&] { (void)done.get(); }),
                     outcome_of([&] { (void)ferry::wait_any(std::vector{later, elsewhere}); }),
                     outcome_of([&] { (void)elsewhere.get(); }),
                     outcome_of([&] { (void)ferry::when_all(std::vector{done, elsewhere}).get(); })});
  });
  EXPECT_GT(get_within(first), 0);
  ASSERT_EQ(seen.wait_for(30s), std::future_status::ready) << "the callback's wait did not end";
  EXPECT_EQ(seen.get(), (std::vector<std::string>{"returned", "returned", "returned", "returned"}));
  EXPECT_GT(get_within(later), 0);
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_WAITS_IN_CALLBACKS_H_
