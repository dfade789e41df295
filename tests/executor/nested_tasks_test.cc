// Copyright ferry authors.
//
// Tasks that submit tasks to the pool they run in
// (ferry::this_task::pool()), under every start method.
#include <string>

#include "nested_tasks.h"
#include "test_harness.h"

namespace {

using NestedTasks = ferry_test::ExecutorTest;
using ferry_test::get_within;

TEST_F(NestedTasks, FibonacciOf20ByNestedTasksFinishesOnTwoWorkers) {
  ferry::process_pool pool(ferry_test::options(2));
  ferry_test::expect_fib_of_20_by_nested_tasks(pool);
  EXPECT_LE(pool.worker_pids().size(), 2u) << "waiting workers are not replaced by more processes";
}

TEST_F(NestedTasks, ARecursionDeeperThanThePoolFinishesOnOneWorker) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::nested_fib(), 12);
  EXPECT_EQ(get_within(f), 144);
}

TEST_F(NestedTasks, ANestedFailureReachesItsParentTaskAsAnException) {
  ferry::process_pool pool(ferry_test::options(2));
  ferry_test::expect_a_nested_failure_to_reach_its_parent_as_an_exception(pool);
}

TEST_F(NestedTasks, ANestedMapReturnsEveryResult) {
  ferry::process_pool pool(ferry_test::options(2));
  ferry_test::expect_a_nested_map_to_return_every_result(pool);
}

TEST_F(NestedTasks, AWorkerKilledWhileItsTaskWaitsFailsOnlyThatTask) {
  ferry::process_pool pool(ferry_test::options(2));
  ferry_test::expect_a_worker_killed_while_its_task_waits_to_fail_only_that_task(pool);
}

TEST_F(NestedTasks, ThisTaskPoolOutsideATaskThrows) {
  const auto e = ferry_test::expect_error<ferry::error>([] { ferry::this_task::pool(); });
  ferry_test::expect_message(e, "outside a task");
}

TEST_F(NestedTasks, ThisTaskPoolUsedFromAnotherThreadOfTheTaskThrows) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::nested_from_another_thread());
  const std::string what = get_within(f);
  EXPECT_NE(what.find("from a thread other than the one running the task"), std::string::npos) << what;
}

TEST_F(NestedTasks, ATaskStillRunningAtShutdownMaySubmitAndWait) {
  ferry::process_pool pool(ferry_test::options(2));
  auto f = pool.submit(test_tasks::nested_fib(), 10);
  pool.shutdown();  // waits: the running task's nested tasks are admitted
  EXPECT_EQ(get_within(f), 55);
}

TEST_F(NestedTasks, ResultsAreThoseOfSpawnInProcess) {
  ferry::pool_options o = ferry_test::options(2);
  o.start = ferry::start_method::in_process;
  ferry::process_pool pool(o);
  auto f = pool.submit(test_tasks::nested_fib(), 12);
  EXPECT_EQ(get_within(f), 144);
  ferry_test::expect_a_nested_failure_to_reach_its_parent_as_an_exception(pool);
}

}  // namespace
