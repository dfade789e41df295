// Copyright ferry authors.
//
// A task whose function is empty (a default-constructed ferry::function,
// or one made from a null function pointer) has nothing to run. Its future
// fails at once with ferry::bad_function_call, as calling the function
// would, and nothing is sent, where it used to travel to a worker and come
// back as a serialization_error "while loading the task in the worker".
// The same for submit with options, map and an actor's call. For the
// process pool's and the MPI pool's tests alike.
#ifndef FERRY_TESTS_EXECUTOR_EMPTY_FUNCTIONS_H_
#define FERRY_TESTS_EXECUTOR_EMPTY_FUNCTIONS_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

namespace ferry_test {

// That f failed with ferry::bad_function_call saying the function is empty
// and nothing was sent (a worker would have answered with a
// serialization_error).
template <class T>
void expect_failed_for_an_empty_function(const ferry::future<T>& f) {
  ASSERT_EQ(f.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  const auto e = expect_error<ferry::bad_function_call>([&] { (void)f.get(); });
  const std::string what = e.what();
  EXPECT_NE(what.find("the task's function is empty"), std::string::npos) << what;
  EXPECT_NE(what.find("nothing was sent"), std::string::npos) << what;
}

template <class Pool>
void expect_an_empty_function_to_fail_its_task_at_once(Pool& pool) {
  const ferry::function<int(int, int)> empty;
  expect_failed_for_an_empty_function(pool.submit(empty, 1, 2));
  expect_failed_for_an_empty_function(pool.submit({.name = "empty"}, empty, 1, 2));
  expect_failed_for_an_empty_function(pool.submit({.retries = 2}, empty, 1, 2));
  int (*null_pointer)(int) = nullptr;
  expect_failed_for_an_empty_function(pool.submit(null_pointer, 3));
  // A future argument: the task is encoded once that future is finished.
  auto dependent = pool.submit(empty, pool.submit(test_tasks::add(), 1, 2), 1);
  ASSERT_EQ(dependent.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  expect_error<ferry::bad_function_call>([&] { (void)dependent.get(); });

  const ferry::function<int(int)> empty_map;
  expect_error<ferry::bad_function_call>([&] { (void)pool.map(empty_map, std::vector<int>{1, 2, 3}); });
  int failed = 0;
  auto results = pool.map_unordered(empty_map, std::vector<int>{1, 2, 3}, 1);
  for (auto it = results.begin(); it != results.end(); ++it) {
    try {
      (void)*it;
    } catch (const ferry::bad_function_call&) {
      ++failed;
    }
  }
  EXPECT_EQ(failed, 3);

  ferry::actor<test_tasks::counter> counter = test_tasks::make_counter(pool, 5);
  expect_failed_for_an_empty_function(counter.call(ferry::function<int(test_tasks::counter&)>()));

  // The pool and the actor go on.
  auto sum = pool.submit(test_tasks::add(), 2, 3);
  EXPECT_EQ(get_within(sum), 5);
  auto added = test_tasks::counter_add(counter, 1);
  EXPECT_EQ(get_within(added), 6);
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_EMPTY_FUNCTIONS_H_
