// Copyright ferry authors.
//
// The executor's errors (src/executor/front/errors.cc): what each says,
// since a user reads what() first, and the fields beside it.
#include <executor/errors.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

TEST(Errors, ATaskErrorSaysWhatTheTaskThrew) {
  EXPECT_STREQ(ferry::task_error("my::parse_error", "line 3").what(), "ferry: the task threw my::parse_error: line 3");
  EXPECT_STREQ(ferry::task_error("int", "").what(), "ferry: the task threw int");
}

TEST(Errors, AWorkersDeathNamesItsPidAndCauseAsItsOneAttempt) {
  const ferry::worker_died_error e(42, "was killed by signal 9 (SIGKILL)");
  EXPECT_STREQ(e.what(), "ferry: the worker process 42 running the task was killed by signal 9 (SIGKILL)");
  EXPECT_EQ(e.pid(), 42);
  EXPECT_EQ(e.attempts(), std::vector<std::string>{"was killed by signal 9 (SIGKILL)"});
  EXPECT_FALSE(e.crash().has_value());
}

TEST(Errors, ARetriedTasksDeathListsEachEarlierAttemptAndTheTasksName) {
  const ferry::worker_died_error e(42, "exited with status 3", {"threw: disk full", "was killed by signal 9"},
                                   "shard 7");
  EXPECT_STREQ(e.what(),
               "ferry: task 'shard 7': the worker process 42 running the task exited with status 3 "
               "(attempt 3; before it: 1. threw: disk full; 2. was killed by signal 9)");
  EXPECT_EQ(e.attempts(), (std::vector<std::string>{"threw: disk full", "was killed by signal 9", "exited with status 3"}));
  EXPECT_EQ(e.cause(), "exited with status 3");
}

TEST(Errors, ACrashShowsItsFirstEightFramesByFunctionAndFile) {
  ferry::crash_report crash;
  crash.signal = 11;
  for (int i = 0; i < 10; ++i)
    crash.frames.push_back({0, "/usr/lib/libtasks.so", static_cast<std::uint64_t>(0x10 * (i + 1)), "f" + std::to_string(i)});
  crash.frames[1].function.clear();
  crash.frames[2].module.clear();
  const std::string what = ferry::worker_died_error(7, "was killed by signal 11 (SIGSEGV)", crash).what();
  EXPECT_NE(what.find("(SIGSEGV); its stack:\n  #0 f0 in libtasks.so+0x10\n  #1 ? in libtasks.so+0x20\n  #2 f2 in ?\n"),
            std::string::npos) << what;
  EXPECT_NE(what.find("\n  #7 f7 in libtasks.so+0x80\n  ... 2 more"), std::string::npos) << what;
  EXPECT_EQ(what.find("#8"), std::string::npos) << what;
}

TEST(Errors, ASerializationErrorSaysWhereItFailedAndOnWhichType) {
  using phase = ferry::serialization_error::phase;
  EXPECT_STREQ(ferry::serialization_error(phase::saving_task, "my::matrix", "too large").what(),
               "ferry: serialization failed while saving the task in the pool: my::matrix: too large");
  EXPECT_STREQ(ferry::to_string(phase::loading_task), "loading the task in the worker");
  EXPECT_STREQ(ferry::to_string(phase::saving_result), "saving the result in the worker");
  EXPECT_STREQ(ferry::to_string(phase::loading_result), "loading the result in the pool");
  EXPECT_STREQ(ferry::serialization_error(phase::loading_result, "std::string", "").what(),
               "ferry: serialization failed while loading the result in the pool: std::string");
}

TEST(Errors, ATaskCancelledBeforeItStartedSaysSo) {
  EXPECT_STREQ(ferry::cancelled_error().what(), "ferry: the task was cancelled before it started");
}

TEST(Errors, EveryExecutorErrorIsAFerryError) {
  const auto is_ferry_error = [](const std::exception& e) { return dynamic_cast<const ferry::error*>(&e) != nullptr; };
  EXPECT_TRUE(is_ferry_error(ferry::task_error("t", "m")));
  EXPECT_TRUE(is_ferry_error(ferry::worker_died_error(1, "c")));
  EXPECT_TRUE(is_ferry_error(ferry::worker_start_error("m")));
  EXPECT_TRUE(is_ferry_error(ferry::task_timeout_error("m")));
  EXPECT_TRUE(is_ferry_error(ferry::cancelled_error()));
  EXPECT_TRUE(is_ferry_error(ferry::serialization_error(ferry::serialization_error::phase::saving_task, "t", "m")));
  EXPECT_TRUE(is_ferry_error(ferry::wait_timeout_error("m")));
  EXPECT_TRUE(is_ferry_error(ferry::pool_shutdown_error("m")));
}
