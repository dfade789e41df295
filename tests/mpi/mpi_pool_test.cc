// Copyright ferry authors.
//
// ferry::mpi_pool under `mpirun -n 3` on one machine: rank 0 runs these
// tests, rank 1 is the host's node agent, rank 2 waits. What rank 0's core
// decides alone is in mpi_core_test.cc, what an agent does in
// agent_test.cc; main() in mpi_test_main.cc. One pool per MPI
// job, so ctest starts one job per test (tests/mpi/CMakeLists.txt), under
// the start method in FERRY_TEST_START (spawn or plugin). The tasks are
// closures made inside functions of a shared library (tests/executor/
// test_tasks.cpp) that the agent's workers load by themselves.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <future>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <executor/executor.h>
#include <executor/mpi_pool.h>

#include "../temp_dir.h"
#include "../executor/actors.h"
#include "../executor/event_recorder.h"
#include "../executor/kill_storm.h"
#include "../executor/long_durations.h"
#include "../executor/empty_functions.h"
#include "../executor/moved_from_pool.h"
#include "../executor/nested_tasks.h"
#include "../executor/openmp_tasks.h"
#include "../executor/priorities.h"
#include "../executor/streaming_map.h"
#include "../executor/test_harness.h"
#include "../executor/test_tasks.h"
#include "../executor/waits_in_callbacks.h"
#include "mpi_test_options.h"

using namespace std::chrono_literals;
using ferry_test::expect_error;
using ferry_test::get_within;

using mpi_test::observed;
using mpi_test::options;

TEST(MpiPool, RunsEveryClosureRouteOnTheAgentsWorkers) {
  ferry::mpi_pool pool(options());
  ASSERT_EQ(pool.hosts().size(), 1u);  // one host, so one agent
  EXPECT_EQ(pool.max_workers(), 2u);
  auto add = pool.submit(test_tasks::add(), 2, 3);
  auto scale = pool.submit(test_tasks::scale(7), 6);
  auto greet = pool.submit(test_tasks::greet("hello"), std::string("ferry"));
  auto sum = pool.submit(test_tasks::sum({1.5, 2.5}));
  auto pointer = pool.submit(test_tasks::negate_pointer(), 9);
  auto cereal_class = pool.submit(test_tasks::offset_by(100), 1);
  auto header = pool.submit(test_tasks::header_closure(3), 5);
  auto wrapped_pointer = pool.submit(&test_tasks::triple, 7);
  EXPECT_EQ(get_within(add), 5);
  EXPECT_EQ(get_within(scale), 42);
  EXPECT_EQ(get_within(greet), "hello, ferry");
  EXPECT_DOUBLE_EQ(get_within(sum), 4.0);
  EXPECT_EQ(get_within(pointer), -9);
  EXPECT_EQ(get_within(cereal_class), 101);
  EXPECT_EQ(get_within(header), 16);
  EXPECT_EQ(get_within(wrapped_pointer), 21);
}

// pool_options::inner_threads on the agents' hosts: each agent divides its
// host's CPUs among its own workers; a count chosen on rank 0 reaches them.
TEST(MpiPool, EachAgentsWorkersRunOpenMpOnTheirShareOfTheirHostsCpus) {
  const int share = static_cast<int>(std::max<std::size_t>(1, ferry::cpu_count() / 2));
  ferry::mpi_pool_options o = options();
  o.local.unset_env = {"OMP_NUM_THREADS"};
  ferry::mpi_pool pool(o);
  auto f = pool.submit(openmp_tasks::max_threads());
  EXPECT_EQ(get_within(f), share);
}

TEST(MpiPool, AnInnerThreadsCountChosenOnRankZeroReachesEveryWorker) {
  ferry::mpi_pool_options o = options();
  o.local.unset_env = {"OMP_NUM_THREADS"};
  o.local.inner_threads = 3;
  ferry::mpi_pool pool(o);
  std::vector<ferry::future<int>> counts;
  for (int i = 0; i < 8; ++i) counts.push_back(pool.submit(openmp_tasks::max_threads()));
  for (auto& f : counts) EXPECT_EQ(get_within(f), 3);
}

// Priorities cross to the agents: rank 0 sends the most urgent task first,
// and an agent's own queue, holding what rank 0 sent ahead, serves it first
// too (tests/executor/priorities.h).
TEST(MpiPool, AnUrgentTaskOvertakesTheQueuesOfRankZeroAndOfItsAgent) {
  ferry::mpi_pool pool(options());
  // Each worker holds one task behind its running one; rank 0 may have sent
  // its agent one more, that the agent passed on to the first free worker.
  ferry_test::expect_an_urgent_task_to_overtake_queued_work(pool, pool.max_workers(), 2 * pool.max_workers());
}

TEST(MpiPool, AMapOfLowPriorityGivesWayToATaskSubmittedAfterIt) {
  ferry::mpi_pool pool(options());
  // The bound of the urgent task's test above, for the same reasons.
  ferry_test::expect_a_low_priority_map_to_give_way(pool, pool.max_workers(), 2 * pool.max_workers());
}

// Tasks that submit tasks: a nested task is queued on its parent's host,
// by that host's agent, and runs on that host's workers; rank 0 never sees
// it (its observer is told of the one task it was given).
TEST(MpiPool, NestedTasksRunOnTheirParentsHostAndFibonacciOf20Finishes) {
  auto seen = std::make_shared<ferry_test::event_recorder>();
  ferry::mpi_pool pool(observed(seen));
  ferry_test::expect_fib_of_20_by_nested_tasks(pool);
  EXPECT_EQ(ferry_test::count(seen->tasks(), ferry::task_event::kind::submitted), 1);
}

TEST(MpiPool, ANestedTasksFailureAndANestedMapReachTheirParentTask) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_a_nested_failure_to_reach_its_parent_as_an_exception(pool);
  ferry_test::expect_a_nested_map_to_return_every_result(pool);
}

TEST(MpiPool, AWorkerKilledWhileItsTaskWaitsForANestedTaskFailsOnlyThatTask) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_a_worker_killed_while_its_task_waits_to_fail_only_that_task(pool);
}

// Actors: the agent's pool binds each to one of its workers; rank 0
// sends all of an actor's tasks to that agent.
TEST(MpiPool, AnActorsConcurrentCallersAreEachCountedOnceAndItsExceptionsArriveAsTheirTypes) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_concurrent_callers_each_counted_once(pool);
  ferry_test::expect_exceptions_of_calls_and_constructors(pool);
}

TEST(MpiPool, SystemAndFilesystemErrorsArriveWithTheirCodesAndPaths) {
  ferry::mpi_pool pool(options());
  EXPECT_EQ(test_tasks::standard_error_differences(pool),
            (std::vector<std::string>{"", "", "", "", "", "", "", "", "8 compared"}));
}

TEST(MpiPool, ARegisteredExceptionTypeArrivesOnRankZeroAsItselfAndOnlyThatExactType) {
  ferry::mpi_pool pool(options());
  EXPECT_EQ(test_tasks::registered_exception_outcomes(pool),
            (std::vector<std::string>{"ferry::task_error test_tasks::parse_error: line 3", "test_tasks::parse_error: line 4",
                                      "ferry::task_error test_tasks::(anonymous namespace)::late_parse_error: line 5"}));
}

TEST(MpiPool, AMemberNamedAsATemplateArgumentRunsOnTheObjectPassedFirstOrMapsOverObjects) {
  ferry::mpi_pool pool(options());
  EXPECT_EQ(test_tasks::member_submits(pool), (std::vector<std::string>{"11", "7", "p", "11", "abc", "17 53", "1 3", "2 4"}));
}

TEST(MpiPool, AnActorsMemberNamedAsATemplateArgumentIsCalledOnTheObject) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_member_calls_to_run_on_the_object(pool);
}

TEST(MpiPool, AnActorWhoseWorkerDiesFailsItsCallsOrWithARestartIsMadeAgainOnItsHost) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_a_dead_actors_calls_to_fail(pool);
  ferry_test::expect_a_restarted_actor_to_run_the_later_calls(pool);
}

// future::cancel(grace) crosses to the task's host: the agent asks its
// worker, and kills it after the grace; nothing else is lost.
TEST(MpiPool, ARunningTaskIsAskedToStopOnItsHostAndKilledAfterItsGrace) {
  ferry::mpi_pool pool(options());
  auto polling = pool.submit(test_tasks::poll_until_stopped(), 20'000);
  auto sleeping = pool.submit(test_tasks::sleep_ms(), 20'000);
  auto spinning = pool.submit(test_tasks::spin_forever());
  std::vector<ferry::future<int>> others;
  for (int i = 0; i < 6; ++i) others.push_back(pool.submit(test_tasks::add(), i, 1));
  std::this_thread::sleep_for(300ms);
  const auto asked = std::chrono::steady_clock::now();
  EXPECT_TRUE(polling.cancel(10s));
  EXPECT_TRUE(sleeping.cancel(100ms));
  EXPECT_TRUE(spinning.cancel(100ms));
  EXPECT_EQ(get_within(polling), 1) << "it saw the request on its host";
  for (auto* f : {&sleeping, &spinning}) {
    const auto e = expect_error<ferry::cancelled_error>([&] { get_within(*f); });
    EXPECT_NE(std::string(e.what()).find("while it was running"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 10s);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(get_within(others[i]), i + 1);
  auto after = pool.submit(test_tasks::add(), 20, 22);
  EXPECT_EQ(get_within(after), 42);
}

TEST(MpiPool, ACancelRacingTheTasksEndNeverLosesADeliveredValue) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_cancels_racing_the_ends_to_keep_delivered_values(pool, 100);
}

// The same admission rule as process_pool's (src/executor/core/admission.h):
// plugin workers cannot load the main executable, so such a task fails at
// submit with not_shippable_error and is never sent.
TEST(MpiPool, MainExecutableCodeUnderPluginIsRefusedAtSubmitAsByTheProcessPool) {
  ferry::mpi_pool pool(options());
  auto f = pool.submit([](int x) { return x + 1; }, 1);  // code in this executable
  if (options().local.start == ferry::start_method::plugin) {
    ASSERT_TRUE(f.ready()) << "the task was queued instead of refused at submit";
    auto e = expect_error<ferry::not_shippable_error>([&] { f.get(); });
    EXPECT_NE(std::string(e.what()).find("main executable"), std::string::npos) << e.what();
  } else {
    EXPECT_EQ(get_within(f), 2);
  }
}

// The crash report of an agent's worker travels to rank 0 with its failure.
TEST(MpiPool, ACrashReportCrossesToRankZero) {
  ferry::mpi_pool pool(options());
  auto crashed = pool.submit(test_tasks::crash(), std::string("null"));
  const auto e = expect_error<ferry::worker_died_error>([&] { get_within(crashed); });
  ASSERT_TRUE(e.crash().has_value()) << e.what();
  EXPECT_EQ(e.crash()->signal, SIGSEGV);
  ASSERT_FALSE(e.crash()->frames.empty());
  EXPECT_NE(e.crash()->frames[0].function.find("test_tasks::crash"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("on host"), std::string::npos) << e.what();
}

TEST(MpiPool, CtrlCReachingAnAgentsWorkerLeavesItsTaskRunningAndAProgramItRunsEndsOnIt) {
  ferry::mpi_pool pool(options());
  auto f = pool.submit(test_tasks::interrupted_then_pid(), 200);
  int pid = 0;
  EXPECT_NO_THROW(pid = get_within(f)) << "a worker died of SIGINT, its task with it";
  EXPECT_GT(pid, 0);
  auto shell = pool.submit(test_tasks::interrupted_shell());
  EXPECT_EQ(get_within(shell), SIGINT) << "a program started by a task inherited an ignored SIGINT (-1) or none ended it";
}

namespace {

// Whether a file under `dir` has the line `line`, waiting up to 10 s:
// mpirun forwards an agent's output a moment after it is written.
bool has_line_within(const std::string& dir, const std::string& line) {
  for (int i = 0; i < 100; ++i) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path());
      for (std::string l; std::getline(in, l);)
        if (l == line) return true;
    }
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

}  // namespace

// Run with mpirun's --output-filename by the test
// mpi.WorkerOutputIsPrefixedWithItsHost (tests/mpi/CMakeLists.txt), which
// names the directory: the agent writes its workers' lines, prefixed with
// its host and the task as rank 0 knows it (its name, or rank 0's number
// for it, the one rank 0's observer and timeline show), to its own stdout,
// which mpirun forwards.
TEST(MpiPoolOutput, AWorkersLinesArePrefixedWithItsHostAndTheTaskAsRankZeroKnowsIt) {
  const char* dir = std::getenv("FERRY_TEST_OUTPUT_DIR");
  if (dir == nullptr) GTEST_SKIP() << "run by mpi.WorkerOutputIsPrefixedWithItsHost";
  auto seen = std::make_shared<ferry_test::event_recorder>();
  auto o = observed(seen);
  o.local.worker_output = ferry::output_mode::prefix;
  // One task at a time on the host, so that a task cancelled on rank 0 is
  // numbered there and never reaches the host: the host's own numbers then
  // run one behind rank 0's.
  o.local.max_workers = 1;
  o.tasks_in_flight_per_worker = 1;
  o.work_ahead = 0ms;
  ferry::mpi_pool pool(o);
  auto named = pool.submit({.name = "greeter"}, test_tasks::print(), std::string("hello from a worker"), 1);
  const int pid = get_within(named);
  const std::string host = pool.hosts().at(0);
  EXPECT_TRUE(has_line_within(dir, "[host " + host + " worker " + std::to_string(pid) + " task 'greeter'] hello from a worker"));

  auto busy = pool.submit(test_tasks::sleep_ms(), 300);
  auto cancelled = pool.submit(test_tasks::add(), 1, 1);
  ASSERT_TRUE(cancelled.cancel()) << "the window of one task should have kept it on rank 0";
  EXPECT_EQ(get_within(busy), pid);
  auto unnamed = pool.submit(test_tasks::print(), std::string("a line of an unnamed task"), 1);
  EXPECT_EQ(get_within(unnamed), pid);
  std::uint64_t number = 0;  // rank 0's, from its observer
  for (const ferry_test::recorded_task& e : seen->tasks())
    if (e.what == ferry::task_event::kind::submitted) number = e.task;
  ASSERT_EQ(number, 4u) << "greeter, busy, cancelled, unnamed";
  EXPECT_TRUE(has_line_within(dir, "[host " + host + " worker " + std::to_string(pid) + " task " +
                                       std::to_string(number) + "] a line of an unnamed task"))
      << "no line of task " << number << " (the host's own number for it is " << number - 1 << ") in " << dir;
}

TEST(MpiPool, ExceptionsArriveAsTheirTypes) {
  ferry::mpi_pool pool(options());
  auto rt = pool.submit(test_tasks::throw_std(), std::string("runtime_error"));
  auto oor = pool.submit(test_tasks::throw_std(), std::string("out_of_range"));
  auto custom = pool.submit(test_tasks::throw_custom());
  expect_error<std::runtime_error>([&] { get_within(rt); });
  expect_error<std::out_of_range>([&] { get_within(oor); });
  const auto e = expect_error<ferry::task_error>([&] { get_within(custom); });
  EXPECT_NE(e.type_name().find("custom_error"), std::string::npos) << e.type_name();
}

// As on the process pool (submit_test.cc): both pools share the front.
TEST(MpiPool, AStringLiteralCStringOrStringViewArgumentTravelsAsTheStdStringOfItsText) {
  ferry::mpi_pool pool(options());
  EXPECT_EQ(test_tasks::c_string_arguments(pool),
            (std::vector<std::string>{"hello 5", "buffer?", "zzz", "1 2 3", "actor-call", "viewed!"}));
  const std::exception_ptr failure = test_tasks::null_c_string_argument(pool);
  ASSERT_NE(failure, nullptr) << "get() threw nothing";
  const auto e = expect_error<ferry::serialization_error>([&] { std::rethrow_exception(failure); });
  EXPECT_EQ(e.type_name(), "ferry::error");
  EXPECT_NE(e.message().find("a null const char*"), std::string::npos) << e.message();
}

// As on the process pool (map_test.cc): both pools share the front.
TEST(MpiPool, SeveralRangesAreZippedUpToTheShortestAsPythonsMapZipsThem) {
  ferry::mpi_pool pool(options());
  EXPECT_EQ(test_tasks::zipped_maps(pool), (std::vector<std::string>{"4 10 18", "1a0.5 2b1.5 3c2.5", "100 103 106",
                                                                     "7x 8y 9z", "p1 q2", "9 18 27", "0 results",
                                                                     "1 4 9"}));
}

// As on the process pool (submit_test.cc); the ranks share this host's
// file system.
TEST(MpiPool, APathOrDirectoryEntryTravelsAsItsPathAndAMapReadsADirectory) {
  ferry_test::temp_dir dir;
  std::ofstream(dir.path() / "f1") << std::string(10, 'a');
  std::ofstream(dir.path() / "f2") << std::string(20, 'b');
  std::filesystem::create_directory(dir.path() / "sub");
  ferry::mpi_pool pool(options());
  EXPECT_EQ(test_tasks::filesystem_arguments(pool, dir.path()),
            (std::vector<std::string>{"f1", "10 20", "f1 f2 sub", "2 regular files", "f1:1 f2:2", "f2.txt"}));
}

TEST(MpiPool, ASegfaultFailsOnlyItsFutureAndNamesTheHost) {
  ferry::mpi_pool pool(options());
  auto crash = pool.submit(test_tasks::crash(), std::string("segv"));
  const auto e = expect_error<ferry::worker_died_error>([&] { get_within(crash); });
  EXPECT_NE(std::string(e.what()).find("SIGSEGV"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("on host " + pool.hosts().at(0)), std::string::npos) << e.what();
  EXPECT_GT(e.pid(), 0) << "the worker's pid on its host (docs/api/mpi.md: no worker_pids())";
  auto after = pool.submit(test_tasks::add(), 20, 22);  // the agent's pool healed
  EXPECT_EQ(get_within(after), 42);
}

namespace {
// The agent's workers: its children.
std::vector<int> children_of(int agent) {
  std::vector<int> pids;
  std::ifstream in("/proc/" + std::to_string(agent) + "/task/" + std::to_string(agent) + "/children");
  for (int pid; in >> pid;) pids.push_back(pid);
  return pids;
}

ferry::future<int> awaits_two(ferry::mpi_pool& pool) {
  const int a = co_await pool.submit(test_tasks::add(), 1, 2);
  const int b = co_await pool.submit(test_tasks::scale(3), a);
  co_return a + b;
}
}  // namespace

// Composition is the future's, so it is the same on both pools
// (tests/executor/compose_test.cc has each case on a process_pool).
TEST(MpiPool, ItsFuturesComposeWithThenWhenAllWhenAnyCoAwaitAndAsArguments) {
  ferry::mpi_pool pool(options());
  auto text = pool.submit(test_tasks::add(), 20, 22).then(
      [](const ferry::future<int>& f) { return std::to_string(f.get()); });
  EXPECT_EQ(get_within(text), "42");
  std::vector<ferry::future<int>> futures;
  for (int i = 0; i < 6; ++i) futures.push_back(pool.submit(test_tasks::add(), i, i));
  futures.push_back(pool.submit(test_tasks::throw_std(), std::string("out_of_range")));
  auto all = ferry::when_all(futures);
  const auto done = get_within(all);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(done[i].get(), 2 * i);
  EXPECT_TRUE(done[6].has_exception());
  EXPECT_EQ(ferry::wait_all_or_first_exception(futures), 6u);
  auto any = ferry::when_any(std::vector<ferry::future<int>>{pool.submit(test_tasks::sleep_ms(), 1500),
                                                             pool.submit(test_tasks::sleep_ms(), 10)});
  EXPECT_EQ(get_within(any).index, 1u);
  auto sum = awaits_two(pool);
  EXPECT_EQ(get_within(sum), 3 + 9);
  auto made = pool.submit(test_tasks::make_string(), std::size_t{3} << 20);
  auto counted = pool.submit(test_tasks::length(), made);  // the bytes go out again from rank 0
  EXPECT_EQ(get_within(counted), std::size_t{3} << 20);
  auto failed = pool.submit(test_tasks::throw_std(), std::string("out_of_range"));
  auto dependent = pool.submit(test_tasks::add(), failed, 1);
  expect_error<std::out_of_range>([&] { get_within(dependent); });
}

// As process_pool::options() (ProcessPool.ItsOptionsAreThoseGivenAndMaxWorkersFollowsResize).
TEST(MpiPool, ItsOptionsAreThoseGivenAndMaxWorkersCountsEveryAgentsWorkers) {
  ferry::mpi_pool_options o = options();
  o.local.max_workers = 3;
  o.work_ahead = std::chrono::milliseconds(7);
  o.agent_timeout = std::chrono::seconds(42);
  ferry::mpi_pool pool(o);
  EXPECT_EQ(pool.options().local.max_workers, 3u);
  EXPECT_EQ(pool.options().local.start, o.local.start);
  EXPECT_EQ(pool.options().work_ahead, std::chrono::milliseconds(7));
  EXPECT_EQ(pool.options().agent_timeout, std::chrono::seconds(42));
  EXPECT_EQ(pool.max_workers(), 3 * pool.hosts().size()) << "each agent runs local.max_workers";
  auto f = pool.submit(test_tasks::add(), 1, 2);
  EXPECT_EQ(get_within(f, std::chrono::seconds(20)), 3);
}

// The agent's pool, like a process_pool, gives a worker that just said
// ready its task before any idle timeout can retire it.
TEST(MpiPool, AnIdleTimeoutOfZeroStillRunsEveryTask) {
  ferry::mpi_pool_options o = options();
  o.local.idle_timeout = std::chrono::milliseconds(0);
  ferry::mpi_pool pool(o);
  for (int i = 0; i < 5; ++i) {
    auto f = pool.submit(test_tasks::add(), i, 1);
    EXPECT_EQ(get_within(f, std::chrono::seconds(20)), i + 1);
  }
}

// An agent_timeout under the agents' one-second heartbeat took every idle
// agent for lost, which ended the job's pools ("every MPI agent of the
// pool was lost"). The heartbeat now comes four times per timeout when
// that is shorter; a timeout under 1 s, and a task timeout of 0 ms, are
// refused before the job is touched, so the next pool runs.
TEST(MpiPool, AShortAgentTimeoutKeepsIdleAgentsAndTimeoutsThatCannotWorkAreRefused) {
  ferry::mpi_pool_options o = options();
  o.agent_timeout = 500ms;
  ferry_test::expect_message(expect_error<ferry::error>([&] { ferry::mpi_pool{o}; }),
                             "mpi_pool_options::agent_timeout of 500 ms: it must be at least 1 s");
  o = options();
  o.local.task_timeout = 0ms;
  ferry_test::expect_message(expect_error<ferry::error>([&] { ferry::mpi_pool{o}; }),
                             "mpi_pool_options::local::task_timeout of 0 ms");
  o = options();
  o.local.env[""] = "x";
  ferry_test::expect_message(expect_error<ferry::error>([&] { ferry::mpi_pool{o}; }),
                             "mpi_pool_options::local::env has the variable ''");
  o = options();
  o.agent_timeout = 1s;
  ferry::mpi_pool pool(o);
  auto before = pool.submit(test_tasks::add(), 1, 2);
  EXPECT_EQ(get_within(before), 3);
  std::this_thread::sleep_for(2500ms);  // idle for more than twice the timeout
  auto after = pool.submit(test_tasks::add(), 2, 3);
  EXPECT_EQ(get_within(after), 5);
  ferry_test::expect_message(
      expect_error<ferry::error>([&] { pool.submit({.timeout = -1ms}, test_tasks::add(), 1, 2); }),
      "task_options::timeout of -1 ms");
}

// A result above pool_options::max_message_size fails its task in the
// agent's worker, which goes on serving, as on a process_pool.
TEST(MpiPool, AResultAboveTheMaximumMessageFailsOnlyItsTask) {
  ferry::mpi_pool_options o = options();
  o.local.max_workers = 1;
  o.local.max_message_size = 1u << 20;
  ferry::mpi_pool pool(o);
  auto before = pool.submit(test_tasks::pid());
  const int worker = get_within(before);
  auto huge = pool.submit(test_tasks::make_string(), std::size_t{2u << 20});
  auto too_big = expect_error<ferry::serialization_error>([&] { get_within(huge); });
  EXPECT_EQ(too_big.where(), ferry::serialization_error::phase::saving_result);
  EXPECT_NE(std::string(too_big.what()).find("exceeds pool_options::max_message_size"), std::string::npos)
      << too_big.what();
  auto after = pool.submit(test_tasks::pid());
  EXPECT_EQ(get_within(after), worker);
}

// A continuation runs on ferry's continuation thread, never on rank 0's
// progress thread: while one is blocked, results still arrive.
TEST(MpiPool, ABlockedContinuationHoldsUpNoProgressThread) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_results_while_a_continuation_blocks(pool);
}

// The storm of tests/executor/kill_storm_test.cc on the agent's workers:
// while four threads submit, one of the agent's workers is SIGKILLed every
// 5 to 15 ms (slower when a worker takes longer to start:
// ferry_test::storm_pauses). A future fails only with the death of the
// worker running it, at most one per kill (a task whose write to a dying worker failed never
// ran, and runs elsewhere), and once the killed workers are gone every task
// gets its value. Smaller than the process pool's storm: on a loaded
// machine the MPI pool's round trip grows to milliseconds, and ctest runs
// two tests at once.
// Each kill is told to rank 0's observer as its worker's exit, with the
// host and why, as the process pool tells it.
TEST(MpiPool, AStormOfWorkerKillsFailsOnlyTasksTheirWorkersWereRunning) {
  auto seen = std::make_shared<ferry_test::event_recorder>();
  ferry::mpi_pool pool(observed(seen));
  int agent = 0;
  const auto start = ferry_test::time_of([&] {
    auto parent = pool.submit(test_tasks::parent_pid());
    agent = get_within(parent);
  });
  ASSERT_GT(agent, 1);
  const auto [min_pause, max_pause] = ferry_test::storm_pauses(start, 5, 15);
  const auto storm = ferry_test::kill_storm(
      [&](int i, int t) { return pool.submit(test_tasks::add(), i, t); }, [&] { return children_of(agent); },
      4, 300, min_pause, max_pause, 90s);
  EXPECT_LE(storm.died, storm.kills) << "more failed tasks than kills";
  EXPECT_GT(storm.values, 0);
  std::vector<int> killed = storm.killed;
  const auto reaped_by = std::chrono::steady_clock::now() + 5s;
  while (!killed.empty() && std::chrono::steady_clock::now() < reaped_by) {  // by the agent
    if (::kill(killed.back(), 0) != 0)
      killed.pop_back();
    else
      std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(killed.empty()) << "a killed worker was not reaped within 5 s";
  for (int i = 0; i < 20; ++i) {
    auto after = pool.submit(test_tasks::add(), i, 1);
    EXPECT_EQ(get_within(after), i + 1);
  }
  // Every killed worker's exit reaches rank 0, after its start.
  for (const int pid : storm.killed) {
    ASSERT_TRUE(seen->wait_for([pid](const auto&, const auto& w) {
      for (const auto& e : w)
        if (e.what == ferry::worker_event::kind::exited && e.pid == pid) return true;
      return false;
    })) << "no exited event for killed worker " << pid;
  }
  // A worker killed while it started is told exited without having been
  // told started (it never was ready), as on the process pool; none is
  // told started after its exit.
  const std::string host = pool.hosts().at(0);
  std::set<int> exited;
  for (const ferry_test::recorded_worker& e : seen->workers()) {
    EXPECT_EQ(e.host, host);
    if (e.what == ferry::worker_event::kind::started) {
      EXPECT_FALSE(exited.contains(e.pid)) << "worker " << e.pid << " told started after its exit";
    }
    if (e.what == ferry::worker_event::kind::exited) {
      exited.insert(e.pid);
      if (std::find(storm.killed.begin(), storm.killed.end(), e.pid) != storm.killed.end()) {
        EXPECT_NE(e.why.find("signal 9"), std::string::npos) << e.why;
      }
    }
  }
}

// Per-task options sit above the pools' queues: retries and names are the
// same on both (tests/executor/task_options_test.cc has each case).
TEST(MpiPool, ATaskWhoseWorkerDiesIsSentAgainAndItsLastDeathListsEachAttempt) {
  ferry::mpi_pool pool(options());
  const std::string counter = ::testing::TempDir() + "/ferry_mpi_runs_" + std::to_string(::getpid());
  std::remove(counter.c_str());
  auto retried = pool.submit({.retries = 2}, test_tasks::fail_first(), counter, 2, 0);
  EXPECT_EQ(get_within(retried), 3);
  std::remove(counter.c_str());
  auto exhausted = pool.submit({.retries = 1, .name = "shard 7"}, test_tasks::fail_first(), counter, 5, 0);
  const auto e = expect_error<ferry::worker_died_error>([&] { get_within(exhausted); });
  EXPECT_EQ(e.attempts().size(), 2u);
  EXPECT_NE(std::string(e.what()).find("task 'shard 7'"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("on host"), std::string::npos) << e.what();
  std::remove(counter.c_str());
}

// A task's own timeout travels with it to the agent, whose local pool
// enforces it, batched or alone.
TEST(MpiPool, ATasksOwnTimeoutIsEnforcedOnItsHost) {
  ferry::mpi_pool pool(options());
  auto spin = pool.submit({.timeout = 300ms, .name = "spins"}, test_tasks::spin_forever());
  const auto e = expect_error<ferry::task_timeout_error>([&] { get_within(spin); });
  EXPECT_NE(std::string(e.what()).find("its timeout of 300 ms"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("task 'spins'"), std::string::npos) << e.what();
  std::vector<ferry::future<int>> quick;
  for (int i = 0; i < 8; ++i) quick.push_back(pool.submit({.timeout = 30s}, test_tasks::add(), i, 1));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(get_within(quick[i]), i + 1);
}

TEST(MpiPool, WithRetriesAStormOfWorkerKillsLosesNoTask) {
  ferry::mpi_pool_options o = options();
  o.local.task_retries = 1000;
  ferry::mpi_pool pool(o);
  int agent = 0;
  const auto start = ferry_test::time_of([&] {
    auto parent = pool.submit(test_tasks::parent_pid());
    agent = get_within(parent);
  });
  const auto [min_pause, max_pause] = ferry_test::storm_pauses(start, 5, 15);
  const auto storm = ferry_test::kill_storm(
      [&](int i, int t) { return pool.submit(test_tasks::add(), i, t); }, [&] { return children_of(agent); },
      4, 200, min_pause, max_pause, 90s);
  EXPECT_EQ(storm.died, 0);
}

// The agent's local pool enforces pool_options' limits: a task past its
// timeout, or over the memory limit alone, fails its own future, naming the
// host, and the agent's pool replaces the worker.
TEST(MpiPool, ATaskTimeoutAndAMemoryLimitStayOnTheirHost) {
  ferry::mpi_pool_options o = options();
  o.local.max_workers = 1;
  // Long enough that allocating 400 MiB, stopped at 100 MiB, never passes
  // for a timeout, even on a loaded machine.
  o.local.task_timeout = 2000ms;
  o.local.max_worker_memory = std::size_t{100} << 20;
  ferry::mpi_pool pool(o);
  const std::string host = "on host " + pool.hosts().at(0);
  auto spin = pool.submit(test_tasks::spin_forever());
  const auto late = expect_error<ferry::task_timeout_error>([&] { get_within(spin); });
  EXPECT_NE(std::string(late.what()).find(host), std::string::npos) << late.what();
  auto big = pool.submit(test_tasks::keep_megabytes(), 400);
  const auto over = expect_error<ferry::worker_died_error>([&] { get_within(big); });
  EXPECT_NE(std::string(over.what()).find("the task alone used more than max_worker_memory"), std::string::npos)
      << over.what();
  EXPECT_NE(std::string(over.what()).find(host), std::string::npos) << over.what();
  auto after = pool.submit(test_tasks::add(), 2, 2);
  EXPECT_EQ(get_within(after), 4);
}

TEST(MpiPool, MapKeepsInputOrderWithChunks) {
  ferry::mpi_pool pool(options());
  std::vector<int> inputs;
  for (int i = 0; i < 500; ++i) inputs.push_back(i);
  for (std::size_t chunk : {1u, 7u, 100u}) {
    const std::vector<int> out = pool.map(test_tasks::scale(3), inputs, chunk, 60s);
    ASSERT_EQ(out.size(), inputs.size());
    for (int i = 0; i < 500; ++i) ASSERT_EQ(out[i], 3 * i) << "chunksize " << chunk;
  }
}

// 50 MiB each way, cut into pieces of 1 MiB: the path a message over 2 GiB
// takes, at a size a test can afford.
// The observer lives on rank 0 and is told of each task there: started when
// it leaves for its host (named), finished or failed when its answer comes.
// The timeline (local.trace) has a row per host, written at shutdown.
TEST(MpiPool, ItsObserverIsToldOfEachTaskOnRankZeroWithItsHostAndItsTimelineHasARowPerHost) {
  auto seen = std::make_shared<ferry_test::event_recorder>();
  const ferry_test::trace_file trace("ferry_mpi_trace");
  ferry::mpi_pool pool(observed(seen, &trace));
  ferry_test::expect_a_tasks_life_told_in_order(pool, *seen, true);
  ferry_test::expect_exceptions_finished_and_deaths_failed(pool, *seen);
  pool.shutdown();
  const std::string json = trace.read();
  EXPECT_NE(json.find("\"args\":{\"name\":\"host " + pool.hosts().front()), std::string::npos) << json;
  std::size_t spans = 0;
  for (std::size_t at = json.find("\"ph\":\"X\""); at != std::string::npos; at = json.find("\"ph\":\"X\"", at + 1))
    ++spans;
  EXPECT_EQ(spans, seen->tasks().size() / 3) << "one span per task (each told submitted, started, ended)";
  EXPECT_NE(json.find("\"status\":\"failed\""), std::string::npos);
}

// As on the process pool (Events.AnObserverOrOnOutputThatThrowsIsDroppedAndThePoolGoesOn):
// rank 0 tells the observer from its manager and its submitting threads.
TEST(MpiPool, AnObserverThatThrowsIsDroppedAndThePoolGoesOn) {
  auto seen = std::make_shared<ferry_test::throwing_observer>();
  ferry::mpi_pool_options o = options();
  o.local.observer = seen;
  ferry::mpi_pool pool(o);
  for (int i = 0; i < 3; ++i) {
    auto f = pool.submit(test_tasks::add(), i, 1);
    EXPECT_EQ(get_within(f), i + 1);
  }
  auto dies = pool.submit(test_tasks::crash(), std::string("abort"));
  expect_error<ferry::worker_died_error>([&] { get_within(dies); });
  auto after = pool.submit(test_tasks::add(), 2, 2);
  EXPECT_EQ(get_within(after), 4);
  pool.shutdown();
  EXPECT_GE(seen->calls.load(), 15) << "each task told submitted, started and ended";
}

// As on the process pool (Future.ACallbackThatThrowsIsDroppedAndThePoolAndTheOtherCallbacksGoOn).
TEST(MpiPool, AnOnDoneCallbackThatThrowsIsDroppedAndThePoolGoesOn) {
  ferry::mpi_pool pool(options());
  auto slow = pool.submit(test_tasks::sleep_ms(), 100);
  std::atomic<int> after{0};
  slow.on_done([](const ferry::future<int>&) { throw std::runtime_error("callback broke"); });
  slow.on_done([&](const ferry::future<int>&) { ++after; });
  EXPECT_GT(get_within(slow), 0);
  auto next = pool.submit(test_tasks::add(), 1, 2);
  EXPECT_EQ(get_within(next), 3);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (after.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(after.load(), 1);
}

// As on the process pool (Submit.APoolHandleMovedFromRefusesEachCallNamingIt).
TEST(MpiPool, APoolHandleMovedFromRefusesEachCallNamingIt) {
  ferry_test::expect_a_pool_handle_moved_from_to_refuse_each_call(ferry::mpi_pool(options()));
  ferry::mpi_pool pool(options());
  ferry::mpi_pool moved_to = std::move(pool);
  ferry_test::expect_refused_on_a_handle_moved_from("hosts()", [&] { (void)pool.hosts(); });
}

// As on the process pool (Submit.AnEmptyFunctionFailsItsTaskAtOnceAsCallingItWould).
TEST(MpiPool, AnEmptyFunctionFailsItsTaskAtOnceAsCallingItWould) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_an_empty_function_to_fail_its_task_at_once(pool);
}

// As on the process pool (TaskOptions.TheLongestTimeoutsGracesAndWaitsMeanNoLimit), and an
// agent_timeout of the longest, which declared every agent lost at its first look.
TEST(MpiPool, TheLongestTimeoutsGracesAndWaitsMeanNoLimit) {
  ferry::mpi_pool_options o = options();
  o.agent_timeout = std::chrono::milliseconds::max();
  o.local.task_timeout = std::chrono::milliseconds::max();
  o.local.idle_timeout = std::chrono::milliseconds::max();
  ferry::mpi_pool pool(o);
  ferry_test::expect_the_longest_durations_to_mean_no_limit(pool);
  std::this_thread::sleep_for(1500ms);  // past a heartbeat: an agent thought lost fails the next task
  auto f = pool.submit(test_tasks::add(), 1, 2);
  EXPECT_EQ(get_within(f), 3);
}

// As on the process pool (Future.ACallbacksWaitForATaskOfItsOwnPoolThrowsRatherThanWaitingForever).
TEST(MpiPool, ACallbacksWaitForATaskOfItsOwnPoolThrowsRatherThanWaitingForever) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_a_callbacks_wait_for_its_own_pools_task_to_throw(pool);
}

// As on the process pool (Events.AMapsChunkIsToldAsThrowingOnlyWhenAnInputThrewAndHowMany).
TEST(MpiPool, AMapsChunkIsToldAsThrowingOnlyWhenAnInputThrewAndHowMany) {
  auto seen = std::make_shared<ferry_test::event_recorder>();
  const ferry_test::trace_file trace("ferry_mpi_chunks");
  ferry::mpi_pool pool(observed(seen, &trace));
  ferry_test::expect_chunks_told_as_throwing_only_when_an_input_threw(pool, *seen);
  pool.shutdown();
  ferry_test::expect_chunk_spans_as_told(trace.read());
}

TEST(MpiPool, MapUnorderedAndSinglePassInputsStreamAsOnTheProcessPool) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_unordered_results_with_their_indexes(pool);
  ferry_test::expect_single_pass_inputs_mapped(pool);
  ferry_test::expect_reading_no_further_ahead_than_the_window(pool);
  ferry_test::expect_automatic_chunks_to_keep_input_order(pool);
}

TEST(MpiPool, WithTaskRetriesAMapsChunkWhoseWorkerDiedIsSentAgain) {
  auto o = options();
  o.local.task_retries = 3;
  ferry::mpi_pool pool(o);
  ferry_test::expect_map_chunks_sent_again_after_a_death(pool);
}

// A rank's stderr is mpirun's pipe, never a terminal: a map's progress bar
// is drawn there all the same (src/executor/observe/progress_line.h), for
// mpirun to relay, as the process pool draws it on a terminal. Here the
// pipe is one of the test's own, put in stderr's place for the map.
TEST(MpiPool, AMapsProgressBarIsDrawnThroughTheLaunchersPipe) {
  ferry::mpi_pool pool(options());
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
  std::fflush(stderr);
  const int saved = ::dup(2);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(::dup2(fds[1], 2), 2);
  ::close(fds[1]);
  const std::vector<int> in(12, 5);
  const std::vector<int> out = pool.map(test_tasks::negate_pointer(), in, ferry::map_options{.chunksize = 1, .progress = true});
  ::dup2(saved, 2);
  ::close(saved);
  std::string drawn;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) drawn.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);  // non-blocking: what was drawn is there; nothing waits for more
  EXPECT_EQ(out, std::vector<int>(12, -5));
  EXPECT_NE(drawn.find("ferry map 100% [####################] 12/12"), std::string::npos) << drawn;
}

TEST(MpiPool, AMapsOwnRetriesReplaceThePoolsTaskRetries) {
  {
    ferry::mpi_pool plain(options());
    ferry_test::expect_map_options_retries_to_replace_the_pools(plain, false);
  }
  auto o = options();
  o.local.task_retries = 3;
  ferry::mpi_pool retrying(o);
  ferry_test::expect_map_options_retries_to_replace_the_pools(retrying, true);
}

TEST(MpiPool, AMapsInputErrorAndAnEarlyBreakCancelWhatIsQueued) {
  auto o = options();
  o.local.max_workers = 1;
  ferry::mpi_pool pool(o);
  ferry_test::expect_an_input_error_out_unchanged_and_the_queue_cancelled(pool, 600);
  ferry_test::expect_leaving_the_loop_early_cancels_the_rest(pool, 600);
}

// As on the process pool (Map.AChunkWhoseWorkerDiedThrowsAtEachOfItsItemsAndTheIterationGoesOn).
TEST(MpiPool, AChunkWhoseWorkerDiedThrowsAtEachOfItsItemsAndTheIterationGoesOn) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_a_dead_chunk_to_throw_at_its_items_and_the_iteration_to_go_on(pool);
}

TEST(MpiPool, AMapEndedEarlyWithStopRunningStopsItsRunningChunksOnTheirHosts) {
  ferry::mpi_pool pool(options());
  ferry_test::expect_an_early_end_to_stop_running_chunks(pool);
}

TEST(MpiPool, FiftyMebibyteArgumentsAndResultsTravelInPieces) {
  ferry::mpi_pool_options o = options();
  o.max_piece = std::size_t{1} << 20;
  ferry::mpi_pool pool(o);
  const std::size_t n = std::size_t{50} << 20;
  auto length = pool.submit(test_tasks::length(), std::string(n, 'a'));
  auto made = pool.submit(test_tasks::make_string(), n);
  // A task's settings travel as a piece of their own before its body's.
  const std::size_t three = std::size_t{3} << 20;
  auto named = pool.submit({.timeout = 60s, .name = "in pieces"}, test_tasks::length(), std::string(three, 'b'));
  EXPECT_EQ(get_within(length), n);
  EXPECT_EQ(get_within(named), three);
  const std::string s = get_within(made);
  EXPECT_EQ(s.size(), n);
  EXPECT_EQ(s.find_first_not_of('x'), std::string::npos);
}

// MPI carries bytes, not descriptors: a shared buffer crosses by value,
// both ways, and the task's writes reach the caller only through its result.
TEST(MpiPool, SharedBuffersTravelByValue) {
  ferry::mpi_pool pool(options());
  ferry::shared_buffer b(1 << 20);
  std::memset(b.data(), 2, b.size());
  auto filled = pool.submit(test_tasks::fill_buffer(), b, 7);
  EXPECT_EQ(get_within(filled), 2u * b.size());
  EXPECT_EQ(b.data()[0], std::byte{2});  // the worker wrote its own copy
  auto made = pool.submit(test_tasks::make_buffers(), std::size_t{2}, std::size_t{4096});
  const std::vector<ferry::shared_buffer> got = get_within(made);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].data()[4095], std::byte{2});
}

TEST(MpiPool, ShutdownWithWorkQueuedCancelsWhatWasNotSent) {
  ferry::mpi_pool pool(options());
  std::vector<ferry::future<int>> futures;
  for (int i = 0; i < 40; ++i) futures.push_back(pool.submit(test_tasks::sleep_ms(), 50));
  std::this_thread::sleep_for(100ms);
  pool.shutdown({.cancel_pending = true});
  int done = 0, cancelled = 0;
  for (auto& f : futures) {
    try {
      get_within(f);
      ++done;
    } catch (const ferry::pool_shutdown_error&) {
      ++cancelled;
    }
  }
  EXPECT_EQ(done + cancelled, 40);
  EXPECT_GT(done, 0);
  EXPECT_GT(cancelled, 0);
  EXPECT_THROW(pool.submit(test_tasks::add(), 1, 2), ferry::pool_shutdown_error);
}

TEST(MpiPool, ShutdownKillingRunningTasksDoesNotWaitForThem) {
  ferry::mpi_pool pool(options());
  auto a = pool.submit(test_tasks::spin_forever());
  auto b = pool.submit(test_tasks::spin_forever());
  std::this_thread::sleep_for(300ms);
  const auto start = std::chrono::steady_clock::now();
  pool.shutdown({.kill_running = true});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
  expect_error<ferry::pool_shutdown_error>([&] { get_within(a); });
  expect_error<ferry::pool_shutdown_error>([&] { get_within(b); });
}

// Every rank starts MPI through serve_if_mpi_agent, rank 0 as the others.
TEST(MpiPool, RanksStartMpiWithoutOpenMpisYieldWhenIdle) {
  const char* yield = std::getenv("OMPI_MCA_mpi_yield_when_idle");
  ASSERT_NE(yield, nullptr) << "serve_if_mpi_agent did not set it before MPI_Init";
  EXPECT_STREQ(yield, "0");
}

namespace {

std::size_t affinity_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 ? static_cast<std::size_t>(CPU_COUNT(&set)) : 0;
}

}  // namespace

// Run under `mpirun --bind-to core` (tests/mpi/CMakeLists.txt), which binds
// every rank, the agent too, to one core: the agent's pool must still get a
// worker per CPU of the host, and its workers must run on all of them.
TEST(MpiPoolBoundToCores, AnAgentBoundToOneCoreByTheLauncherStillUsesEveryCpuOfItsHost) {
  ASSERT_EQ(affinity_count(), 1u) << "run this test under mpirun --bind-to core";
  // What this host allows a process that asks for every CPU, as the agent does.
  cpu_set_t bound;
  ASSERT_EQ(::sched_getaffinity(0, sizeof bound, &bound), 0);
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &all);
  ASSERT_EQ(::sched_setaffinity(0, sizeof all, &all), 0);
  const std::size_t host_cpus = ferry::cpu_count();
  ASSERT_EQ(::sched_setaffinity(0, sizeof bound, &bound), 0);
  if (host_cpus < 2) GTEST_SKIP() << "one CPU: a binding to one core changes nothing here";

  ferry::mpi_pool_options o = options();
  o.local.max_workers = 0;  // cpu_count() of the agent's host
  ferry::mpi_pool pool(o);
  EXPECT_EQ(pool.max_workers(), host_cpus);
  if (o.local.start == ferry::start_method::spawn) {  // a closure of this program
    auto f = pool.submit([] { return affinity_count(); });
    EXPECT_EQ(get_within(f), host_cpus);
  }
}

// Spawn mode, under `mpirun -n 1`: the pool starts its agent itself.
TEST(MpiPoolOneRank, AJobOfOneRankSpawnsItsAgentAndRunsTasks) {
  ferry::mpi_pool_options o = options();
  o.spawn_agents = 1;
  ferry::mpi_pool pool(o);
  ASSERT_EQ(pool.hosts().size(), 1u);
  auto add = pool.submit(test_tasks::add(), 2, 3);
  auto greet = pool.submit(test_tasks::greet("hello"), std::string("ferry"));
  EXPECT_EQ(get_within(add), 5);
  EXPECT_EQ(get_within(greet), "hello, ferry");
  auto crash = pool.submit(test_tasks::crash(), std::string("segv"));
  expect_error<ferry::worker_died_error>([&] { get_within(crash); });
  auto after = pool.submit(test_tasks::add(), 20, 22);
  EXPECT_EQ(get_within(after), 42);
  pool.shutdown();
  // A later pool is served by the agent the first spawned, not by more.
  o.spawn_agents = 2;
  const auto e = expect_error<ferry::error>([&] { ferry::mpi_pool more(o); });
  EXPECT_NE(std::string(e.what()).find("set spawn_agents to 1 or 0"), std::string::npos) << e.what();
  o.spawn_agents = 1;
  ferry::mpi_pool next(o);
  ASSERT_EQ(next.hosts().size(), 1u);
  auto again = next.submit(test_tasks::add(), 1, 2);
  EXPECT_EQ(get_within(again), 3);
}

TEST(MpiPool, SpawningInAJobOfSeveralRanksIsRefusedAndTheNextPoolRuns) {
  ferry::mpi_pool_options o = options();
  o.spawn_agents = 1;
  EXPECT_THROW(ferry::mpi_pool{o}, ferry::error);
  ferry::mpi_pool pool(options());
  auto f = pool.submit(test_tasks::add(), 2, 3);
  EXPECT_EQ(get_within(f), 5);
}

TEST(MpiPoolOneRank, AJobOfOneRankWithoutSpawnAgentsIsRefused) {
  try {
    ferry::mpi_pool pool(options());
    FAIL() << "a pool was made with no agent";
  } catch (const ferry::error& e) {
    EXPECT_NE(std::string(e.what()).find("has no node agent"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mpirun -n 2 or more"), std::string::npos) << e.what();
  }
}

// A pool that outlives main (its handle never destroyed) is shut down when
// rank 0 exits, its queued tasks dropped: the job then ends with status 0
// and leaves no process (run_job.sh checks both), where finalizing MPI
// under its running manager would abort the job or hang it. An earlier
// pool, shut down and destroyed after it was made, changes nothing.
TEST(MpiPoolKeptPastMain, APoolStillRunningWhenRankZeroExitsIsShutDownAndTheJobEndsCleanly) {
  std::optional<ferry::mpi_pool> earlier(std::in_place, options());
  earlier->shutdown();
  auto* kept = new ferry::mpi_pool(options());  // never deleted: it outlives main
  earlier.reset();
  auto first = kept->submit(test_tasks::add(), 2, 3);
  EXPECT_EQ(get_within(first), 5);
  std::vector<ferry::future<int>> queued;
  for (int i = 0; i < 20; ++i) queued.push_back(kept->submit(test_tasks::sleep_ms(), 200));
  EXPECT_FALSE(queued.back().ready());
}
