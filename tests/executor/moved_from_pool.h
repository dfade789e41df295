// Copyright ferry authors.
//
// A pool handle moved from has no pool: each call on it throws ferry::error
// naming the call, as a future moved from does, where it dereferenced a
// null pointer and the program died of SIGSEGV. The handle moved to, and
// the old one once a pool is assigned to it, work. For the process pool's
// and the MPI pool's tests alike.
#ifndef FERRY_TESTS_EXECUTOR_MOVED_FROM_POOL_H_
#define FERRY_TESTS_EXECUTOR_MOVED_FROM_POOL_H_

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

namespace ferry_test {

// That use() throws ferry::error naming `call` and the handle's state.
template <class Use>
void expect_refused_on_a_handle_moved_from(const std::string& call, Use&& use) {
  try {
    use();
    ADD_FAILURE() << call << " on a handle moved from threw nothing";
  } catch (const ferry::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ferry: " + call + " on a"), std::string::npos) << what;
    EXPECT_NE(what.find("(moved from)"), std::string::npos) << what;
  }
}

template <class Pool>
void expect_a_pool_handle_moved_from_to_refuse_each_call(Pool pool) {
  Pool moved_to = std::move(pool);
  expect_refused_on_a_handle_moved_from("submit", [&] { (void)pool.submit(test_tasks::add(), 1, 2); });
  expect_refused_on_a_handle_moved_from("submit", [&] { (void)pool.submit({.name = "t"}, test_tasks::add(), 1, 2); });
  expect_refused_on_a_handle_moved_from("map", [&] { (void)pool.map(test_tasks::scale(2), std::vector<int>{1}); });
  expect_refused_on_a_handle_moved_from("map", [&] { (void)pool.map_unordered(test_tasks::scale(2), std::vector<int>{1}); });
  expect_refused_on_a_handle_moved_from("make_actor", [&] { (void)test_tasks::make_counter(pool, 0); });
  expect_refused_on_a_handle_moved_from("shutdown", [&] { pool.shutdown(); });
  expect_refused_on_a_handle_moved_from("is_shutdown", [&] { (void)pool.is_shutdown(); });
  expect_refused_on_a_handle_moved_from("max_workers()", [&] { (void)pool.max_workers(); });
  expect_refused_on_a_handle_moved_from("options()", [&] { (void)pool.options(); });
  EXPECT_FALSE(pool == moved_to);

  auto f = moved_to.submit(test_tasks::add(), 1, 2);
  EXPECT_EQ(get_within(f), 3);
  ferry::actor<test_tasks::counter> counter = test_tasks::make_counter(moved_to, 10);
  ferry::actor<test_tasks::counter> counter_moved_to = std::move(counter);
  expect_refused_on_a_handle_moved_from("actor::call", [&] { (void)counter.call<&test_tasks::counter::add>(1); });
  EXPECT_EQ(counter.id(), 0u);
  auto added = counter_moved_to.call<&test_tasks::counter::add>(1);
  EXPECT_EQ(get_within(added), 11);

  pool = moved_to;  // a handle again
  EXPECT_TRUE(pool == moved_to);
  auto g = pool.submit(test_tasks::add(), 2, 2);
  EXPECT_EQ(get_within(g), 4);
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_MOVED_FROM_POOL_H_
