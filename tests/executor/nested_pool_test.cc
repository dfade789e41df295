// Copyright ferry authors.
//
// src/executor/front/nested_pool.cc: ferry::this_task::pool(), the pool a
// running task submits to. Outside a task there is none, and the error
// says what to use instead; inside one (here a worker thread of an
// in_process pool) its tasks run in the task's own pool. What nested tasks
// do across start methods and deaths is nested_tasks_test.cc's.
#include <executor/nested_pool.h>

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include <executor/executor.h>

namespace {

TEST(NestedPool, OutsideATaskThereIsNoPoolAndTheErrorSaysWhatToUse) {
  try {
    (void)ferry::this_task::pool();
    ADD_FAILURE() << "a pool outside any task";
  } catch (const ferry::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("outside a task"), std::string::npos) << what;
    EXPECT_NE(what.find("use the pool itself"), std::string::npos) << what;
  }
}

TEST(NestedPool, AnotherThreadThanTheTasksHasNoPoolEither) {
  // A thread the test starts is not a worker's, though a pool exists.
  ferry::pool_options o;
  o.max_workers = 1;
  o.start = ferry::start_method::in_process;
  ferry::process_pool pool(o);
  bool refused = false;
  std::thread([&] {
    try {
      (void)ferry::this_task::pool();
    } catch (const ferry::error&) {
      refused = true;
    }
  }).join();
  EXPECT_TRUE(refused);
}

TEST(NestedPool, ATasksNestedTasksRunInItsPool) {
  ferry::pool_options o;
  o.max_workers = 2;
  o.start = ferry::start_method::in_process;
  ferry::process_pool pool(o);
  auto f = pool.submit(
      [](int x) {
        ferry::nested_pool here = ferry::this_task::pool();
        ferry::nested_pool copy = here;  // the same pool
        auto a = here.submit([](int y) { return y + 1; }, x);
        auto b = copy.submit([](int y) { return y * 10; }, x);
        return a.get() + b.get();
      },
      4);
  ASSERT_EQ(f.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(f.get(), 45);
}

}  // namespace
