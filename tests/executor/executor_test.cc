// Copyright ferry authors.
//
// The executor's behaviour, run once per start method: ctest runs this
// program with FERRY_TEST_START=spawn, fork and plugin. Every test ends by
// checking that no child process of this test remains.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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

using namespace std::chrono_literals;

using ferry_test::children;
using ferry_test::method;
using ferry_test::expect_error;
using ferry_test::options;
using Executor = ferry_test::ExecutorTest;

TEST_F(Executor, SubmitsEveryShippableKind) {
  ferry::process_pool pool(options());
  EXPECT_EQ(pool.submit(test_tasks::add(), 2, 3).get(), 5);
  EXPECT_EQ(pool.submit(test_tasks::scale(7), 6).get(), 42);
  EXPECT_EQ(pool.submit(test_tasks::greet("hello"), std::string("ferry")).get(), "hello, ferry");
  EXPECT_DOUBLE_EQ(pool.submit(test_tasks::sum({1.5, 2.5})).get(), 4.0);
  EXPECT_EQ(pool.submit(test_tasks::negate_pointer(), 9).get(), -9);
  EXPECT_EQ(pool.submit(test_tasks::offset_by(100), 1).get(), 101);
  pool.submit(test_tasks::discard(), 1).get();  // void
}

// A function pointer is named by its target's module, wherever it was
// wrapped: this program wraps a pointer into the tasks' library, and even a
// plugin worker, which cannot load this program, runs it.
TEST_F(Executor, LibraryFunctionWrappedByTheProgramRunsUnderEveryStartMethod) {
  ferry::process_pool pool(options(1));
  const ferry::function<int(int)> f = &test_tasks::triple;
  EXPECT_EQ(pool.submit(f, 5).get(), 15);
  EXPECT_EQ(pool.submit(&test_tasks::triple, 7).get(), 21);
}

// A closure type whose name is unique in a program (here made by an inline
// function of a header) names every module that registers it, so a plugin
// worker, which cannot load this program, runs this program's copy from the
// library's.
TEST_F(Executor, HeaderDefinedClosureWrappedByTheProgramRunsUnderEveryStartMethod) {
  ferry::process_pool pool(options(1));
  EXPECT_EQ(pool.submit(test_tasks::header_closure(3), 5).get(), 16);
  EXPECT_EQ(pool.submit(test_tasks::header_closure_from_library(4), 5).get(), 21);
}

// A worker that does not know the signature (ferry-worker) calls a function
// pointer through a module that wraps pointers of that signature; where none
// does, the task fails saying what to do.
TEST_F(Executor, PointerOfASignatureNoLoadedModuleCallsFailsSayingWhatToDo) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit(&test_tasks::halve, 3.0);
  if (method() != ferry::start_method::plugin) {
    EXPECT_DOUBLE_EQ(f.get(), 1.5);
    return;
  }
  auto e = expect_error<ferry::serialization_error>([&] { f.get(); });
  EXPECT_EQ(e.where(), ferry::serialization_error::phase::loading_task);
  EXPECT_EQ(e.type_name(), "ferry::not_shippable_error");
  EXPECT_NE(e.message().find("wrap the call in a capture-less lambda"), std::string::npos) << e.message();
}

TEST_F(Executor, MapKeepsInputOrder) {
  ferry::process_pool pool(options());
  std::vector<int> inputs;
  for (int i = 0; i < 100; ++i) inputs.push_back(i);
  for (std::size_t chunk : {1u, 7u, 256u}) {
    const std::vector<int> out = pool.map(test_tasks::scale(3), inputs, chunk);
    ASSERT_EQ(out.size(), inputs.size());
    for (int i = 0; i < 100; ++i) EXPECT_EQ(out[i], 3 * i) << "chunksize " << chunk;
  }
  pool.map(test_tasks::discard(), inputs, 10);
}

TEST_F(Executor, MapRethrowsTheFirstFailureInOrder) {
  ferry::process_pool pool(options());
  const std::vector<std::string> kinds = {"none", "out_of_range", "runtime_error"};
  EXPECT_THROW(pool.map(test_tasks::throw_std(), kinds, 1), std::out_of_range);
}

TEST_F(Executor, StdExceptionsKeepTheirType) {
  ferry::process_pool pool(options());
  auto run = [&](const char* kind) { return pool.submit(test_tasks::throw_std(), std::string(kind)); };
  EXPECT_THROW(run("runtime_error").get(), std::runtime_error);
  EXPECT_THROW(run("invalid_argument").get(), std::invalid_argument);
  EXPECT_THROW(run("out_of_range").get(), std::out_of_range);
  EXPECT_THROW(run("overflow_error").get(), std::overflow_error);
  EXPECT_THROW(run("bad_alloc").get(), std::bad_alloc);
  try {
    run("logic_error").get();
    FAIL();
  } catch (const std::logic_error& e) {
    EXPECT_EQ(typeid(e), typeid(std::logic_error));
    EXPECT_STREQ(e.what(), "lg");
  }
}

TEST_F(Executor, OtherExceptionsAreTaskErrors) {
  ferry::process_pool pool(options());
  auto custom = expect_error<ferry::task_error>([&] { pool.submit(test_tasks::throw_custom()).get(); });
  EXPECT_EQ(custom.type_name(), "test_tasks::(anonymous namespace)::custom_error");
  EXPECT_EQ(custom.message(), "custom failure");
  auto thrown_int = expect_error<ferry::task_error>([&] { pool.submit(test_tasks::throw_int()).get(); });
  EXPECT_EQ(thrown_int.type_name(), "int");
}

TEST_F(Executor, TenThousandTasksFromEightThreads) {
  ferry::process_pool pool(options());
  std::atomic<int> correct{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<ferry::future<int>> futures;
      for (int i = 0; i < 1250; ++i) futures.push_back(pool.submit(test_tasks::add(), t, i));
      for (int i = 0; i < 1250; ++i) correct += futures[i].get() == t + i;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(correct.load(), 10000);
}

TEST_F(Executor, CrashesFailOnlyTheirTask) {
  ferry::process_pool pool(options());
  const std::pair<const char*, const char*> crashes[] = {
      {"abort", "signal 6 (SIGABRT)"}, {"segv", "signal 11 (SIGSEGV)"}, {"exit3", "exited with code 3"}};
  for (const auto& [how, cause] : crashes) {
    auto slow = pool.submit(test_tasks::sleep_ms(), 200);
    auto e = expect_error<ferry::worker_died_error>(
        [&] { pool.submit(test_tasks::crash(), std::string(how)).get(); });
    EXPECT_NE(std::string(e.what()).find(cause), std::string::npos) << e.what();
    EXPECT_GT(slow.get(), 0);                              // the other task completed
    EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);  // and the pool serves
  }
}

TEST_F(Executor, WorkerKilledFromOutside) {
  ferry::process_pool pool(options(1));
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);
  const std::vector<int> pids = pool.worker_pids();
  ASSERT_EQ(pids.size(), 1u);
  auto victim = pool.submit(test_tasks::sleep_ms(), 10'000);
  std::this_thread::sleep_for(100ms);
  ::kill(pids[0], SIGKILL);
  auto e = expect_error<ferry::worker_died_error>([&] { victim.get(); });
  EXPECT_EQ(e.pid(), pids[0]);
  EXPECT_NE(std::string(e.what()).find("SIGKILL"), std::string::npos) << e.what();
  EXPECT_NE(pool.submit(test_tasks::pid()).get(), pids[0]);
}


TEST_F(Executor, OutOfMemoryWorkerDies) {
  SKIP_UNDER_SANITIZER();
  ferry::process_pool pool(options(1));
  auto e = expect_error<ferry::worker_died_error>([&] { pool.submit(test_tasks::exhaust_memory()).get(); });
  EXPECT_NE(std::string(e.what()).find("SIGABRT"), std::string::npos) << e.what();
  EXPECT_EQ(pool.submit(test_tasks::add(), 2, 2).get(), 4);
}

TEST_F(Executor, TaskTimeoutKillsAndReplacesTheWorker) {
  ferry::pool_options o = options(1);
  o.task_timeout = 300ms;
  ferry::process_pool pool(o);
  const int first = pool.submit(test_tasks::pid()).get();
  EXPECT_THROW(pool.submit(test_tasks::spin_forever()).get(), ferry::task_timeout_error);
  const int second = pool.submit(test_tasks::pid()).get();
  EXPECT_NE(first, second);
}

TEST_F(Executor, IdleWorkersExitAndThePoolRegrows) {
  ferry::pool_options o = options(2);
  o.idle_timeout = 200ms;
  ferry::process_pool pool(o);
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 2).get(), 3);
  EXPECT_FALSE(pool.worker_pids().empty());
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!pool.worker_pids().empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(pool.worker_pids().empty());
  EXPECT_EQ(pool.submit(test_tasks::add(), 2, 2).get(), 4);
}

TEST_F(Executor, MaxTasksPerWorkerRecycles) {
  ferry::pool_options o = options(1);
  o.max_tasks_per_worker = 2;
  ferry::process_pool pool(o);
  std::vector<int> pids;
  for (int i = 0; i < 6; ++i) pids.push_back(pool.submit(test_tasks::pid()).get());
  EXPECT_EQ(pids[0], pids[1]);
  EXPECT_NE(pids[1], pids[2]);
  EXPECT_EQ(pids[2], pids[3]);
  EXPECT_EQ(std::set<int>(pids.begin(), pids.end()).size(), 3u);
}

TEST_F(Executor, InitializerAndEnvironmentAreSeenByTasks) {
  ferry::pool_options o = options(1);
  o.initializer = test_tasks::initializer();
  o.env["FERRY_TEST_VALUE"] = "from the pool";
  ferry::process_pool pool(o);
  EXPECT_TRUE(pool.submit(test_tasks::initialized()).get());
  EXPECT_EQ(pool.submit(test_tasks::getenv(), std::string("FERRY_TEST_VALUE")).get(), "from the pool");
}

// What an MPI node agent needs: its workers must not see the launcher's
// variables (a child that inherits OMPI_* and calls MPI_Init fails).
TEST_F(Executor, UnsetEnvironmentVariablesAreNotInheritedByWorkers) {
  ::setenv("FERRY_TEST_LAUNCHER_RANK", "3", 1);
  ::setenv("FERRY_TEST_LAUNCHER_SIZE", "4", 1);
  ::setenv("FERRY_TEST_EXACT", "gone", 1);
  ::setenv("FERRY_TEST_EXACTLY", "kept", 1);
  ferry::pool_options o = options(1);
  o.unset_env = {"FERRY_TEST_LAUNCHER_*", "FERRY_TEST_EXACT"};
  o.env["FERRY_TEST_LAUNCHER_SIZE"] = "set by the pool";  // env comes after unset_env
  {
    ferry::process_pool pool(o);
    const auto get = [&](const char* name) { return pool.submit(test_tasks::getenv(), std::string(name)).get(); };
    EXPECT_EQ(get("FERRY_TEST_LAUNCHER_RANK"), "<unset>");
    EXPECT_EQ(get("FERRY_TEST_EXACT"), "<unset>");
    EXPECT_EQ(get("FERRY_TEST_EXACTLY"), "kept");
    EXPECT_EQ(get("FERRY_TEST_LAUNCHER_SIZE"), "set by the pool");
  }
  EXPECT_STREQ(std::getenv("FERRY_TEST_LAUNCHER_RANK"), "3");  // the pool's own stays
  for (const char* name : {"FERRY_TEST_LAUNCHER_RANK", "FERRY_TEST_LAUNCHER_SIZE", "FERRY_TEST_EXACT", "FERRY_TEST_EXACTLY"})
    ::unsetenv(name);
}

TEST_F(Executor, FailingInitializerIsAStartError) {
  ferry::pool_options o = options(1);
  o.initializer = test_tasks::failing_initializer();
  ferry::process_pool pool(o);
  auto e = expect_error<ferry::worker_start_error>([&] { pool.submit(test_tasks::add(), 1, 1).get(); });
  EXPECT_NE(std::string(e.what()).find("initializer failed: no database"), std::string::npos) << e.what();
}

TEST_F(Executor, LargeArgumentsAndResultsUseSharedMemory) {
  ferry::process_pool pool(options(1));
  std::string big(3u << 20, 'x');
  big[12345] = 'y';
  EXPECT_EQ(pool.submit(test_tasks::echo(), big).get(), big);
  EXPECT_EQ(pool.submit(test_tasks::length(), big).get(), big.size());
}

TEST_F(Executor, OversizedMessageFailsItsTask) {
  ferry::pool_options o = options(1);
  o.max_message_size = 1u << 20;
  ferry::process_pool pool(o);
  // Refused before sending; only that task fails.
  auto big = pool.submit(test_tasks::length(), std::string(2u << 20, 'x'));
  auto e = expect_error<ferry::error>([&] { big.get(); });
  EXPECT_NE(std::string(e.what()).find("max_message_size"), std::string::npos) << e.what();
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 2).get(), 3);
  // A result above the maximum: the worker is replaced, the task fails.
  auto huge = pool.submit(test_tasks::make_string(), std::size_t{2u << 20});
  auto died = expect_error<ferry::worker_died_error>([&] { huge.get(); });
  EXPECT_NE(std::string(died.what()).find("larger than the maximum"), std::string::npos) << died.what();
  EXPECT_EQ(pool.submit(test_tasks::add(), 2, 2).get(), 4);
}

TEST_F(Executor, UnserializableArgumentFailsItsOwnFuture) {
  ferry::process_pool pool(options(1));
  // A function pointer with C linkage cannot be named in bytes.
  int (*c_abs)(int) = &::abs;
  ferry::function<int(int)> c_function = c_abs;
  auto f = pool.submit(test_tasks::add(), 1, 2);
  auto bad = pool.submit(test_tasks::apply_to_one(), c_function);
  auto e = expect_error<ferry::serialization_error>([&] { bad.get(); });
  EXPECT_EQ(e.where(), ferry::serialization_error::phase::saving_task);
  EXPECT_EQ(e.type_name(), "ferry::not_shippable_error");
  EXPECT_NE(e.message().find("C linkage"), std::string::npos) << e.message();
  EXPECT_EQ(f.get(), 3);
}

TEST_F(Executor, ShutdownCancellingPendingWork) {
  ferry::process_pool pool(options(1));
  auto running = pool.submit(test_tasks::sleep_ms(), 300);
  std::this_thread::sleep_for(100ms);
  std::vector<ferry::future<int>> pending;
  for (int i = 0; i < 5; ++i) pending.push_back(pool.submit(test_tasks::add(), i, i));
  std::this_thread::sleep_for(50ms);
  pool.shutdown({.cancel_pending = true});
  EXPECT_GT(running.get(), 0);
  // The first was already sent, queued behind the running task; it runs.
  EXPECT_EQ(pending[0].get(), 0);
  for (std::size_t i = 1; i < pending.size(); ++i) EXPECT_THROW(pending[i].get(), ferry::pool_shutdown_error);
  EXPECT_THROW(pool.submit(test_tasks::add(), 1, 1), ferry::pool_shutdown_error);
}

TEST_F(Executor, ShutdownRunsPendingWork) {
  ferry::process_pool pool(options(1));
  std::vector<ferry::future<int>> futures;
  for (int i = 0; i < 20; ++i) futures.push_back(pool.submit(test_tasks::add(), i, 1));
  pool.shutdown({.wait = true});
  for (int i = 0; i < 20; ++i) EXPECT_EQ(futures[i].get(), i + 1);
}

TEST_F(Executor, DestructorWithWorkInFlightJoins) {
  ferry::future<int> f;
  {
    ferry::process_pool pool(options(2));
    f = pool.submit(test_tasks::sleep_ms(), 200);
    pool.submit(test_tasks::sleep_ms(), 200);
  }
  EXPECT_TRUE(f.ready());
  EXPECT_GT(f.get(), 0);
}

TEST_F(Executor, CancelOnlyBeforeSending) {
  ferry::process_pool pool(options(1));
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

// A task queued behind a running one in a worker that dies never started:
// it runs on the replacement, and only the running task fails.
TEST_F(Executor, TaskQueuedInADyingWorkerRunsElsewhere) {
  ferry::process_pool pool(options(1));
  auto running = pool.submit(test_tasks::sleep_ms(), 10'000);
  auto queued = pool.submit(test_tasks::pid());  // sent behind it
  std::this_thread::sleep_for(100ms);
  const std::vector<int> pids = pool.worker_pids();
  ASSERT_EQ(pids.size(), 1u);
  ::kill(pids[0], SIGKILL);
  expect_error<ferry::worker_died_error>([&] { running.get(); });
  const int ran_in = queued.get();
  EXPECT_GT(ran_in, 0);
  EXPECT_NE(ran_in, pids[0]);
}

TEST_F(Executor, WaitingAndCallbacks) {
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
  EXPECT_FALSE(ferry::wait_all(std::vector{slow, pool.submit(test_tasks::sleep_ms(), 300)}, 1ms));
  ferry::wait_all(std::vector{slow});
  EXPECT_TRUE(slow.ready());
  // Callbacks run on the manager thread after waiters are released.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (called.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(called.load(), 1);
}

TEST_F(Executor, ReusableExecutorIsReusedAndResized) {
  keeps_reusable_pool();
  ferry::pool_options o = options(1);
  ferry::process_pool a = ferry::get_reusable_executor(o);
  EXPECT_EQ(a.submit(test_tasks::add(), 1, 2).get(), 3);
  const std::vector<int> pids = a.worker_pids();
  ferry::process_pool b = ferry::get_reusable_executor(o);
  EXPECT_EQ(b.worker_pids(), pids);  // same pool, same workers
  EXPECT_EQ(b.submit(test_tasks::pid()).get(), pids.at(0));
  o.max_workers = 2;
  ferry::process_pool c = ferry::get_reusable_executor(o);
  EXPECT_EQ(c.max_workers(), 2u);
  EXPECT_EQ(a.max_workers(), 2u);  // one pool
  c.shutdown();
  ferry::process_pool d = ferry::get_reusable_executor(o);
  EXPECT_FALSE(d.is_shutdown());
  EXPECT_EQ(d.submit(test_tasks::add(), 2, 2).get(), 4);
  d.shutdown();
}

TEST_F(Executor, NestedPoolIsRefused) {
  ferry::process_pool pool(options(1));
  auto e = expect_error<ferry::task_error>([&] { pool.submit(test_tasks::nested_pool()).get(); });
  EXPECT_NE(std::string(e.what()).find("nested pools are not supported"), std::string::npos) << e.what();
}

TEST_F(Executor, TasksKeepTheirOwnChildren) {
  ferry::process_pool pool(options(1));
  EXPECT_EQ(pool.submit(test_tasks::child_exit_status(), 7).get(), 7);
}

TEST_F(Executor, MainExecutableCodeUnderPlugin) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit([](int x) { return x + 1; }, 1);  // code in this executable
  if (method() == ferry::start_method::plugin) {
    auto e = expect_error<ferry::not_shippable_error>([&] { f.get(); });
    EXPECT_NE(std::string(e.what()).find("main executable"), std::string::npos) << e.what();
  } else {
    EXPECT_EQ(f.get(), 2);
  }
}


// ---- Semantics users of mature pools rely on -------------------------------

TEST_F(Executor, SerializationErrorsNameTheirPhase) {
  ferry::process_pool pool(options(1));
  using phase = ferry::serialization_error::phase;
  const int worker = pool.submit(test_tasks::pid()).get();
  for (auto [fail_when, where] : {std::pair{1, phase::saving_task}, std::pair{2, phase::loading_task},
                                  std::pair{3, phase::saving_result}, std::pair{4, phase::loading_result}}) {
    test_tasks::fragile f;
    f.fail_when = fail_when;
    auto e = expect_error<ferry::serialization_error>([&] { pool.submit(test_tasks::pass_fragile(), f).get(); });
    EXPECT_EQ(e.where(), where) << e.what();
    EXPECT_EQ(e.type_name(), "std::runtime_error") << e.what();
    EXPECT_NE(e.message().find("fragile refuses"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(ferry::to_string(where)), std::string::npos) << e.what();
  }
  // The worker survived every phase.
  EXPECT_EQ(pool.submit(test_tasks::pid()).get(), worker);
  test_tasks::fragile fine;
  EXPECT_TRUE(pool.submit(test_tasks::pass_fragile(), fine).get().fail_when == 0);
}

TEST_F(Executor, ExitInATaskIsAWorkerDeath) {
  ferry::process_pool pool(options(1));
  for (auto [how, cause] : {std::pair{"exit0", "exited with code 0"}, std::pair{"_exit0", "exited with code 0"},
                            std::pair{"_exit42", "exited with code 42"}}) {
    auto e = expect_error<ferry::worker_died_error>([&] { pool.submit(test_tasks::exit_with(), std::string(how)).get(); });
    EXPECT_EQ(e.cause(), cause) << how;
    EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);
  }
}

TEST_F(Executor, NestedExceptionsKeepTheInnerMessage) {
  ferry::process_pool pool(options(1));
  auto e = expect_error<ferry::task_error>([&] { pool.submit(test_tasks::throw_nested()).get(); });
  EXPECT_EQ(e.type_name(), "std::runtime_error");
  EXPECT_EQ(e.message(), "outer: inner cause");
}

TEST_F(Executor, ShutdownCanKillRunningTasks) {
  ferry::process_pool pool(options(2));
  auto a = pool.submit(test_tasks::sleep_ms(), 20'000);
  auto b = pool.submit(test_tasks::sleep_ms(), 20'000);
  auto pending = pool.submit(test_tasks::add(), 1, 1);
  std::this_thread::sleep_for(200ms);
  const auto start = std::chrono::steady_clock::now();
  pool.shutdown({.kill_running = true});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_THROW(a.get(), ferry::pool_shutdown_error);
  EXPECT_THROW(b.get(), ferry::pool_shutdown_error);
  EXPECT_THROW(pending.get(), ferry::pool_shutdown_error);
}

TEST_F(Executor, MemoryLimitRetiresTheWorkerAfterItsTask) {
  SKIP_UNDER_SANITIZER();
  ferry::pool_options o = options(1);
  o.max_worker_memory = std::size_t{150} << 20;
  ferry::process_pool pool(o);
  // Each task keeps 60 MiB: none alone crosses the limit; together they do.
  const int first = pool.submit(test_tasks::keep_megabytes(), 60).get();
  std::vector<int> pids{first};
  for (int i = 0; i < 3; ++i) pids.push_back(pool.submit(test_tasks::keep_megabytes(), 60).get());
  EXPECT_EQ(pids[1], first);  // baseline + 60 MiB after the first: kept
  EXPECT_NE(pids[3], first);  // over 150 MiB after the third at the latest: replaced
}

TEST_F(Executor, TaskAloneOverTheMemoryLimitIsStopped) {
  SKIP_UNDER_SANITIZER();
  ferry::pool_options o = options(1);
  o.max_worker_memory = std::size_t{100} << 20;
  ferry::process_pool pool(o);
  auto e = expect_error<ferry::worker_died_error>([&] { pool.submit(test_tasks::keep_megabytes(), 400).get(); });
  EXPECT_NE(std::string(e.what()).find("the task alone used more than max_worker_memory"), std::string::npos)
      << e.what();
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);
}

TEST_F(Executor, WaitAnyReturnsTheFirstFinished) {
  ferry::process_pool pool(options(2));
  std::vector<ferry::future<int>> futures = {pool.submit(test_tasks::sleep_ms(), 1500),
                                             pool.submit(test_tasks::sleep_ms(), 10)};
  EXPECT_EQ(ferry::wait_any(futures), 1u);
  EXPECT_EQ(ferry::wait_any(std::vector{futures[0]}, 1ms), std::nullopt);
  EXPECT_EQ(ferry::wait_any(futures, 1ms), std::optional<std::size_t>(1));
}

TEST_F(Executor, MapOrderedYieldsResultsAsTheyArrive) {
  ferry::process_pool pool(options(2));
  const auto start = std::chrono::steady_clock::now();
  auto results = pool.map_ordered(test_tasks::sleep_ms(), std::vector<int>{1, 1500});
  auto it = results.begin();
  EXPECT_GT(*it, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1200ms);  // did not wait for the slow one
  ++it;
  EXPECT_GT(*it, 0);
  ++it;
  EXPECT_TRUE(it == results.end());
}

TEST_F(Executor, MapWithATimeout) {
  ferry::process_pool pool(options(1));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(pool.map(test_tasks::sleep_ms(), std::vector<int>{1000, 1000, 1000}, 1, 200ms),
               ferry::wait_timeout_error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 900ms);
  EXPECT_EQ(pool.map(test_tasks::scale(2), std::vector<int>{1, 2}, 1, 10s), (std::vector<int>{2, 4}));
}

TEST_F(Executor, HandlesCompareEqualWhenTheyReferToTheSamePool) {
  ferry::process_pool a(options(1));
  ferry::process_pool copy = a;
  ferry::process_pool other(options(1));
  EXPECT_TRUE(a == copy);
  EXPECT_FALSE(a == other);
  EXPECT_TRUE(a != other);
  ferry::process_pool moved = std::move(copy);
  EXPECT_TRUE(moved == a);
}

TEST_F(Executor, ReusableExecutorIsOnePoolUntilItsOptionsChange) {
  keeps_reusable_pool();
  ferry::pool_options o = options(1);
  ferry::process_pool first = ferry::get_reusable_executor(o);
  EXPECT_TRUE(first == ferry::get_reusable_executor(o));
  o.env["FERRY_TEST_VALUE"] = "another pool";
  EXPECT_FALSE(first == ferry::get_reusable_executor(o));
}

TEST_F(Executor, ReusableExecutorReplacedWhenOtherOptionsChange) {
  keeps_reusable_pool();
  ferry::pool_options o = options(1);
  ferry::process_pool a = ferry::get_reusable_executor(o);
  const int first = a.submit(test_tasks::pid()).get();
  std::atomic<bool> stop{false};
  std::atomic<int> served{0};
  std::thread user([&] {  // keeps using its handle while the pool is resized and replaced
    while (!stop) served += a.submit(test_tasks::add(), 1, 1).get() == 2;
  });
  o.max_workers = 2;
  ferry::process_pool resized = ferry::get_reusable_executor(o);
  o.env["FERRY_TEST_VALUE"] = "replaced";
  ferry::process_pool replaced = ferry::get_reusable_executor(o);
  EXPECT_EQ(replaced.submit(test_tasks::getenv(), std::string("FERRY_TEST_VALUE")).get(), "replaced");
  std::this_thread::sleep_for(100ms);
  stop = true;
  user.join();
  EXPECT_GT(served.load(), 0);
  EXPECT_EQ(resized.max_workers(), 2u);  // the same pool as a
  EXPECT_EQ(a.max_workers(), 2u);
  EXPECT_NE(replaced.submit(test_tasks::pid()).get(), first);
  a.shutdown();
  replaced.shutdown();
}

TEST_F(Executor, NoTaskIsSentToAWorkerThatIsRetiring) {
  ferry::pool_options o = options(2);
  o.idle_timeout = 1ms;
  o.max_tasks_per_worker = 1;
  ferry::process_pool pool(o);
  std::vector<ferry::future<int>> futures;
  for (int i = 0; i < 60; ++i) {
    futures.push_back(pool.submit(test_tasks::add(), i, 0));
    if (i % 10 == 0) std::this_thread::sleep_for(5ms);  // let workers go idle and time out
  }
  for (int i = 0; i < 60; ++i) EXPECT_EQ(futures[i].get(), i);
}


int main(int argc, char** argv) { return ferry_test::run_tests(argc, argv); }
