// Copyright ferry authors.
//
// src/executor/wire/task_exception.cc, the one codec of an exception that
// crosses between processes: what a task threw (captured in the worker,
// thrown again in the pool) and the error that failed a task as a whole on
// an MPI agent (record_of there, exception_of on rank 0), each through the
// bytes of protocol.h.
#include "executor/wire/task_exception.h"
#include "../error_message.h"

#include <gtest/gtest.h>

#include <exception>
#include <stdexcept>
#include <string>

#include <cereal/types/string.hpp>

#include <executor/errors.h>
#include <serialize/archive.h>
#include <serialize/error.h>

namespace {

using ferry::detail::exception_of;
using ferry::detail::record_of;
using ferry::detail::protocol::exception_kind;
using ferry::detail::protocol::exception_record;

// The record through its bytes, as it travels.
exception_record through_the_wire(const exception_record& record) {
  std::string bytes;
  {
    ferry::output_archive out(bytes);
    ferry::detail::protocol::write_exception(out, record);
  }
  ferry::input_archive in(bytes);
  return ferry::detail::protocol::read_exception(in);
}

// What a pool's error becomes on the other side: recorded, sent, rebuilt.
std::exception_ptr crossed(const std::exception_ptr& error, std::string_view where = {}) {
  return exception_of(through_the_wire(record_of(error)), where);
}

using ferry_test::caught_as;

// What the task throws, recorded in the worker as the task server does.
template <class F>
exception_record recorded_from(F&& throwing) {
  try {
    throwing();
  } catch (...) {
    return through_the_wire(ferry::detail::current_exception_record());
  }
  ADD_FAILURE() << "the function did not throw";
  return {};
}

struct parse_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

TEST(TaskException, AWorkerDeathCrossesWithItsPidCauseAndCrashReport) {
  ferry::crash_report crash;
  crash.signal = 11;
  crash.fault_address = 0x10;
  crash.frames.push_back({0x4000, "/lib/libtasks.so", 0x123, "crash_now+0x1f"});
  const ferry::worker_died_error sent(4242, "died of SIGSEGV", crash);
  const auto got = caught_as<ferry::worker_died_error>(crossed(std::make_exception_ptr(sent)));
  EXPECT_EQ(got.pid(), 4242);
  EXPECT_EQ(got.cause(), "died of SIGSEGV");
  EXPECT_STREQ(got.what(), sent.what());
  ASSERT_TRUE(got.crash().has_value());
  EXPECT_EQ(got.crash()->signal, 11);
  EXPECT_EQ(got.crash()->fault_address, 0x10u);
  ASSERT_EQ(got.crash()->frames.size(), 1u);
  EXPECT_EQ(got.crash()->frames[0].module, "/lib/libtasks.so");
  EXPECT_EQ(got.crash()->frames[0].offset, 0x123u);
  EXPECT_EQ(got.crash()->frames[0].function, "crash_now+0x1f");
}

TEST(TaskException, EachOfThePoolsOwnErrorsCrossesAsItsTypeWithItsMessage) {
  const auto check = [](auto sent) {
    using E = decltype(sent);
    const auto got = caught_as<E>(crossed(std::make_exception_ptr(sent)));
    EXPECT_STREQ(got.what(), sent.what()) << typeid(E).name();
  };
  check(ferry::task_timeout_error("ferry: the task ran past its timeout of 1 s"));
  check(ferry::worker_start_error("ferry: the worker program could not start"));
  check(ferry::pool_shutdown_error("ferry: the pool shut down"));
  check(ferry::not_shippable_error("ferry: the callable is not shippable"));
  check(ferry::cancelled_error("ferry: the task was stopped"));
  check(ferry::error("ferry: something of ferry's own"));
}

TEST(TaskException, ASerializationErrorKeepsItsPhaseTypeAndMessage) {
  const ferry::serialization_error sent(ferry::serialization_error::phase::saving_result, "my::matrix",
                                        "too large");
  const auto got = caught_as<ferry::serialization_error>(crossed(std::make_exception_ptr(sent)));
  EXPECT_EQ(got.where(), ferry::serialization_error::phase::saving_result);
  EXPECT_EQ(got.type_name(), "my::matrix");
  EXPECT_EQ(got.message(), "too large");
}

TEST(TaskException, ATaskErrorKeepsTheTypeNameOfWhatTheTaskThrew) {
  const ferry::task_error sent("my::parse_error", "line 3");
  const auto got = caught_as<ferry::task_error>(crossed(std::make_exception_ptr(sent)));
  EXPECT_EQ(got.type_name(), "my::parse_error");
  EXPECT_EQ(got.message(), "line 3");
}

TEST(TaskException, TheHostIsAppendedToTheMessageOnTheWayBack) {
  const auto got = caught_as<ferry::task_timeout_error>(
      crossed(std::make_exception_ptr(ferry::task_timeout_error("ferry: timed out")), " (on host h1)"));
  EXPECT_STREQ(got.what(), "ferry: timed out (on host h1)");
}

TEST(TaskException, TheExactStandardTypesAThrowingTaskUsesKeepTheirType) {
  const auto record = recorded_from([] { throw std::out_of_range("index 7"); });
  EXPECT_EQ(record.kind, exception_kind::out_of_range);
  EXPECT_STREQ(caught_as<std::out_of_range>(exception_of(record)).what(), "index 7");
  EXPECT_EQ(recorded_from([] { throw std::invalid_argument("x"); }).kind, exception_kind::invalid_argument);
  EXPECT_EQ(recorded_from([] { throw std::bad_alloc(); }).kind, exception_kind::bad_alloc);
}

TEST(TaskException, ASubclassOfAStandardTypeArrivesAsATaskErrorNamingIt) {
  const auto record = recorded_from([] { throw parse_error("line 3"); });
  EXPECT_EQ(record.kind, exception_kind::other);
  const auto got = caught_as<ferry::task_error>(exception_of(record));
  EXPECT_NE(got.type_name().find("parse_error"), std::string::npos) << got.type_name();
  EXPECT_EQ(got.message(), "line 3");
}

TEST(TaskException, NestedExceptionsArriveWithEveryInnerMessage) {
  const auto record = recorded_from([] {
    try {
      throw std::runtime_error("disk full");
    } catch (...) {
      std::throw_with_nested(std::runtime_error("saving the model"));
    }
  });
  const auto got = caught_as<ferry::task_error>(exception_of(record));
  EXPECT_EQ(got.type_name(), "std::runtime_error");
  EXPECT_EQ(got.message(), "saving the model: disk full");
}

TEST(TaskException, AThrownValueThatIsNoExceptionArrivesNamedByItsType) {
  const auto got = caught_as<ferry::task_error>(exception_of(recorded_from([] { throw 42; })));
  EXPECT_EQ(got.type_name(), "int");
  EXPECT_EQ(got.message(), "");
}
