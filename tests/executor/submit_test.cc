// Copyright ferry authors.
//
// What can be submitted, and where its code is found: every shippable kind,
// functions and closures named by the module that has them, code a plugin
// worker cannot load, messages too large, many threads at once.
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "../temp_dir.h"
#include "empty_functions.h"
#include "moved_from_pool.h"
#include "test_harness.h"
#include "test_tasks.h"


using ferry_test::method;
using ferry_test::expect_error;
using ferry_test::options;
using Submit = ferry_test::ExecutorTest;

TEST_F(Submit, SubmitsEveryShippableKind) {
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
TEST_F(Submit, LibraryFunctionWrappedByTheProgramRunsUnderEveryStartMethod) {
  ferry::process_pool pool(options(1));
  const ferry::function<int(int)> f = &test_tasks::triple;
  EXPECT_EQ(pool.submit(f, 5).get(), 15);
  EXPECT_EQ(pool.submit(&test_tasks::triple, 7).get(), 21);
}

// A closure type whose name is unique in a program (here made by an inline
// function of a header) names every module that registers it, so a plugin
// worker, which cannot load this program, runs this program's copy from the
// library's.
TEST_F(Submit, HeaderDefinedClosureWrappedByTheProgramRunsUnderEveryStartMethod) {
  ferry::process_pool pool(options(1));
  EXPECT_EQ(pool.submit(test_tasks::header_closure(3), 5).get(), 16);
  EXPECT_EQ(pool.submit(test_tasks::header_closure_from_library(4), 5).get(), 21);
}

// A worker that does not know the signature (ferry-worker) calls a function
// pointer through a module that wraps pointers of that signature; where none
// does, the task fails saying what to do.
TEST_F(Submit, PointerOfASignatureNoLoadedModuleCallsFailsSayingWhatToDo) {
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

TEST_F(Submit, MainExecutableCodeUnderPlugin) {
  ferry::process_pool pool(options(1));
  auto f = pool.submit([](int x) { return x + 1; }, 1);  // code in this executable
  if (method() == ferry::start_method::plugin) {
    auto e = expect_error<ferry::not_shippable_error>([&] { f.get(); });
    EXPECT_NE(std::string(e.what()).find("main executable"), std::string::npos) << e.what();
  } else {
    EXPECT_EQ(f.get(), 2);
  }
}

TEST_F(Submit, TenThousandTasksFromEightThreads) {
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

TEST_F(Submit, LargeArgumentsAndResultsUseSharedMemory) {
  ferry::process_pool pool(options(1));
  std::string big(3u << 20, 'x');
  big[12345] = 'y';
  EXPECT_EQ(pool.submit(test_tasks::echo(), big).get(), big);
  EXPECT_EQ(pool.submit(test_tasks::length(), big).get(), big.size());
}

TEST_F(Submit, OversizedMessageFailsItsTask) {
  ferry::pool_options o = options(1);
  o.max_message_size = 1u << 20;
  ferry::process_pool pool(o);
  // Refused before sending; only that task fails.
  auto big = pool.submit(test_tasks::length(), std::string(2u << 20, 'x'));
  auto e = expect_error<ferry::error>([&] { big.get(); });
  EXPECT_NE(std::string(e.what()).find("max_message_size"), std::string::npos) << e.what();
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 2).get(), 3);
  // A result above the maximum fails its task in the worker, saying so
  // and what to do; the worker is not lost (the pool would refuse such a
  // message and kill its sender).
  const int worker = pool.submit(test_tasks::pid()).get();
  auto huge = pool.submit(test_tasks::make_string(), std::size_t{2u << 20});
  auto too_big = expect_error<ferry::serialization_error>([&] { huge.get(); });
  EXPECT_EQ(too_big.where(), ferry::serialization_error::phase::saving_result);
  EXPECT_NE(std::string(too_big.what()).find("result of 2097"), std::string::npos) << too_big.what();
  EXPECT_NE(std::string(too_big.what()).find("exceeds pool_options::max_message_size (1048576 bytes)"),
            std::string::npos)
      << too_big.what();
  EXPECT_EQ(pool.submit(test_tasks::pid()).get(), worker);
}

TEST_F(Submit, UnserializableArgumentFailsItsOwnFuture) {
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

// pool.submit(f, "hello") failed to compile inside cereal ("does not
// support serializing raw pointers"), and a std::string_view argument at
// ferry's static_assert: each now travels as the std::string of its text,
// copied at the call.
TEST_F(Submit, AStringLiteralCStringOrStringViewArgumentTravelsAsTheStdStringOfItsText) {
  ferry::process_pool pool(options(2));
  EXPECT_EQ(test_tasks::c_string_arguments(pool),
            (std::vector<std::string>{"hello 5", "buffer?", "zzz", "1 2 3", "actor-call", "viewed!"}));
}

// A std::filesystem::path argument stopped at the static_assert for
// unserializable arguments: cereal has no support for it. Each use
// test_tasks.h names, on every start method.
TEST_F(Submit, AMemberNamedAsATemplateArgumentRunsOnTheObjectPassedFirstOrMapsOverObjects) {
  ferry::process_pool pool(options());
  EXPECT_EQ(test_tasks::member_submits(pool), (std::vector<std::string>{"11", "7", "p", "11", "abc", "17 53", "1 3", "2 4"}));
}

TEST_F(Submit, APathOrDirectoryEntryTravelsAsItsPathAndAMapReadsADirectory) {
  ferry_test::temp_dir dir;
  std::ofstream(dir.path() / "f1") << std::string(10, 'a');
  std::ofstream(dir.path() / "f2") << std::string(20, 'b');
  std::filesystem::create_directory(dir.path() / "sub");
  ferry::process_pool pool(options(2));
  EXPECT_EQ(test_tasks::filesystem_arguments(pool, dir.path()),
            (std::vector<std::string>{"f1", "10 20", "f1 f2 sub", "2 regular files", "f1:1 f2:2", "f2.txt"}));
}

// Each call dereferenced a null pointer (tests/executor/moved_from_pool.h).
TEST_F(Submit, APoolHandleMovedFromRefusesEachCallNamingIt) {
  ferry_test::expect_a_pool_handle_moved_from_to_refuse_each_call(ferry::process_pool(options(1)));
  ferry::process_pool pool(options(1));
  ferry::process_pool moved_to = std::move(pool);
  ferry_test::expect_refused_on_a_handle_moved_from("resize", [&] { pool.resize(2); });
  ferry_test::expect_refused_on_a_handle_moved_from("worker_pids()", [&] { (void)pool.worker_pids(); });
}

// It travelled to a worker and came back as a serialization_error
// (tests/executor/empty_functions.h).
TEST_F(Submit, AnEmptyFunctionFailsItsTaskAtOnceAsCallingItWould) {
  ferry::process_pool pool(options(1));
  ferry_test::expect_an_empty_function_to_fail_its_task_at_once(pool);
}

TEST_F(Submit, ANullCStringArgumentFailsItsTaskSayingWhatToPass) {
  ferry::process_pool pool(options(1));
  const std::exception_ptr failure = test_tasks::null_c_string_argument(pool);
  ASSERT_NE(failure, nullptr) << "get() threw nothing";
  auto e = expect_error<ferry::serialization_error>([&] { std::rethrow_exception(failure); });
  EXPECT_EQ(e.where(), ferry::serialization_error::phase::saving_task);
  EXPECT_EQ(e.type_name(), "ferry::error");
  EXPECT_NE(e.message().find("a null const char*"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("pass a string"), std::string::npos) << e.message();
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 2).get(), 3);
}

TEST_F(Submit, SerializationErrorsNameTheirPhase) {
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

TEST_F(Submit, NestedPoolIsRefused) {
  ferry::process_pool pool(options(1));
  auto e = expect_error<ferry::task_error>([&] { pool.submit(test_tasks::nested_pool()).get(); });
  EXPECT_NE(std::string(e.what()).find("nested pools are not supported"), std::string::npos) << e.what();
}

