// Copyright ferry authors.
//
// task_options::priority and map_options::priority on the process pool
// (tests/executor/priorities.h; the MPI pool's are in
// tests/mpi/mpi_pool_test.cc). The queue's order does not depend on how
// workers are started: these run under spawn only.
#include "priorities.h"

namespace {

using Priorities = ferry_test::ExecutorTest;
using ferry_test::get_within;

TEST_F(Priorities, AnUrgentTaskOvertakesTheQueueButNotWhatWasSentToAWorker) {
  ferry::process_pool pool(ferry_test::options(2));
  // Each worker holds at most one task behind its running one, and the
  // other worker starts one more while the urgent one waits behind that.
  ferry_test::expect_an_urgent_task_to_overtake_queued_work(pool, 2, 4);
}

TEST_F(Priorities, WithinOnePriorityTasksStartInTheOrderSubmitted) {
  ferry::pool_options o = ferry_test::options(1);
  o.worker_output = ferry::output_mode::prefix;
  ferry::process_pool pool(o);
  ferry_test::expect_first_come_first_served_within_a_priority(pool);
}

TEST_F(Priorities, AMapOfLowPriorityGivesWayToATaskSubmittedAfterIt) {
  ferry::process_pool pool(ferry_test::options(2));
  // As for the urgent task: one chunk sent ahead per worker, and one more
  // the other worker starts while the urgent task waits behind its worker's.
  ferry_test::expect_a_low_priority_map_to_give_way(pool, 2, 4);
}

// A task sent to a worker that died before starting it goes back to the
// queue ahead of the tasks of its priority, not behind them (where exactly:
// tests/executor/task_intake_test.cc), and runs.
TEST_F(Priorities, ATaskGivenBackByADeadWorkerRunsAheadOfLaterTasksOfItsPriority) {
  ferry::process_pool pool(ferry_test::options(1));
  auto dying = pool.submit(test_tasks::abort_after_ms(), 300);
  auto sent = pool.submit(test_tasks::started_at(), 0);  // sent behind it, never started
  auto later = pool.submit(test_tasks::started_at(), 0);
  auto urgent = pool.submit({.priority = 5}, test_tasks::started_at(), 0);
  ferry_test::expect_error<ferry::worker_died_error>([&] { get_within(dying); });
  const std::int64_t u = get_within(urgent), s = get_within(sent), l = get_within(later);
  EXPECT_LT(u, l);
  EXPECT_LT(s, l);
}

}  // namespace
