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
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <variant>

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

TEST(TaskException, ASystemErrorKeepsItsCodeOfEachStandardCategoryAndItsMessage) {
  const std::error_code codes[] = {
      std::make_error_code(std::errc::permission_denied), std::error_code(EPIPE, std::system_category()),
      std::make_error_code(std::io_errc::stream), std::make_error_code(std::future_errc::broken_promise)};
  for (const std::error_code& code : codes) {
    const std::system_error thrown(code, "writing results.bin");
    const auto record = recorded_from([&] { throw thrown; });
    EXPECT_EQ(record.kind, exception_kind::system_error) << code.category().name();
    EXPECT_EQ(record.text, "writing results.bin");
    const auto got = caught_as<std::system_error>(exception_of(record));
    EXPECT_EQ(typeid(got), typeid(std::system_error));
    EXPECT_EQ(got.code(), code);
    EXPECT_STREQ(got.what(), thrown.what());
  }
  // Made from the code alone: what() is the code's message, as before.
  const auto bare = caught_as<std::system_error>(
      exception_of(recorded_from([] { throw std::system_error(std::make_error_code(std::errc::timed_out)); })));
  EXPECT_EQ(bare.code(), std::errc::timed_out);
  EXPECT_EQ(std::string(bare.what()), std::make_error_code(std::errc::timed_out).message());
}

TEST(TaskException, AFilesystemErrorKeepsItsCodeAndEachOfItsPaths) {
  const auto code = std::make_error_code(std::errc::no_such_file_or_directory);
  const std::filesystem::filesystem_error made[] = {
      {"listing", code}, {"reading", "/data/in.csv", code}, {"copying", "/data/a", "/data/b", code},
      {"reading", "", code}};  // an empty path given is told from none by what()
  for (const auto& thrown : made) {
    const auto record = recorded_from([&] { throw thrown; });
    ASSERT_EQ(record.kind, exception_kind::filesystem_error) << thrown.what();
    const auto got = caught_as<std::filesystem::filesystem_error>(exception_of(record));
    EXPECT_EQ(got.code(), code);
    EXPECT_EQ(got.path1(), thrown.path1());
    EXPECT_EQ(got.path2(), thrown.path2());
    EXPECT_STREQ(got.what(), thrown.what());
  }
}

TEST(TaskException, AStreamsFailureArrivesAsIosBaseFailureWithItsCode) {
  const auto record = recorded_from([] {
    std::ifstream in;
    in.exceptions(std::ios::failbit);
    in.open("/nonexistent-ferry/in.txt");
  });
  EXPECT_EQ(record.kind, exception_kind::ios_failure);
  const auto got = caught_as<std::ios_base::failure>(exception_of(record));
  EXPECT_EQ(got.code(), std::io_errc::stream);
  EXPECT_EQ(std::string(got.what()), "basic_ios::clear: " + std::make_error_code(std::io_errc::stream).message());
}

TEST(TaskException, ACodeOfTheProgramsOwnCategoryArrivesAsATaskErrorNamingTheType) {
  static const struct : std::error_category {
    const char* name() const noexcept override { return "parser"; }
    std::string message(int) const override { return "bad token"; }
  } parser;
  const auto record = recorded_from([] { throw std::system_error(std::error_code(3, parser), "line 9"); });
  EXPECT_EQ(record.kind, exception_kind::other);
  const auto got = caught_as<ferry::task_error>(exception_of(record));
  EXPECT_EQ(got.type_name(), "std::system_error");
  EXPECT_EQ(got.message(), "line 9: bad token");
}

TEST(TaskException, BadOptionalVariantCastAndFunctionCallKeepTheirType) {
  EXPECT_THROW(std::rethrow_exception(exception_of(recorded_from([] { (void)std::optional<int>().value(); }))),
               std::bad_optional_access);
  EXPECT_THROW(std::rethrow_exception(
                   exception_of(recorded_from([] { (void)std::get<int>(std::variant<int, char>('c')); }))),
               std::bad_variant_access);
  EXPECT_THROW(std::rethrow_exception(exception_of(recorded_from([] { throw std::bad_cast(); }))), std::bad_cast);
  EXPECT_THROW(std::rethrow_exception(exception_of(recorded_from([] { std::function<void()>()(); }))),
               std::bad_function_call);
}

TEST(TaskException, TheHostGoesBeforeTheCodesMessage) {
  const auto code = std::make_error_code(std::errc::no_such_file_or_directory);
  const auto record = recorded_from([&] { throw std::system_error(code, "opening in.csv"); });
  const auto got = caught_as<std::system_error>(exception_of(record, " (on host h1)"));
  EXPECT_EQ(std::string(got.what()), "opening in.csv (on host h1): " + code.message());
}

TEST(TaskException, AnUnknownErrorCategoryOrAThirdPathIsRefused) {
  exception_record unknown;
  unknown.kind = exception_kind::system_error;
  unknown.category = static_cast<ferry::detail::protocol::error_category_id>(9);
  EXPECT_THROW(through_the_wire(unknown), ferry::error);
  exception_record three;
  three.kind = exception_kind::filesystem_error;
  three.paths = {"/a", "/b", "/c"};
  EXPECT_THROW(through_the_wire(three), ferry::error);
}

namespace {
struct config_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct refusing_error : std::runtime_error {
  explicit refusing_error(const std::string&) : std::runtime_error("") { throw std::logic_error("refused"); }
};
}  // namespace

TEST(TaskException, ARegisteredTypeIsMadeAgainFromItsMessageWhereItWouldBeATaskError) {
  const auto record = recorded_from([] { throw config_error("no key 'port'"); });
  EXPECT_EQ(record.kind, exception_kind::other);
  EXPECT_EQ(caught_as<ferry::task_error>(exception_of(record)).message(), "no key 'port'");
  ferry::register_exception<config_error>();
  ferry::register_exception<config_error>();  // again: the same
  const auto got = caught_as<config_error>(exception_of(record));
  EXPECT_EQ(typeid(got), typeid(config_error));
  EXPECT_STREQ(got.what(), "no key 'port'");
}

TEST(TaskException, ARegisteredTypeWhoseConstructorThrowsArrivesAsATaskError) {
  ferry::register_exception<refusing_error>();
  const auto record = recorded_from([] { throw std::runtime_error("x"); });
  exception_record named = record;
  named.kind = exception_kind::other;
  named.type_name = "(anonymous namespace)::refusing_error";  // as the worker names it
  const auto got = caught_as<ferry::task_error>(exception_of(named));
  EXPECT_EQ(got.message(), "x");
}
