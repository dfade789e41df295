// Copyright ferry authors.
//
// src/serialize/code/payload_code.cc: what the executor asks of the
// serialization layer. A worker that does not know a task's types loads
// its function as callable_any and calls it on serialized arguments; the
// pool asks which modules a payload names, and whether only this program
// has them.
#include "serialize/code/payload_code.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <serialize/error.h>
#include <serialize/function.h>
#include "serialize/code/loaded_modules_linux.h"

namespace {

using int_fn = ferry::function<int(int)>;

int twice(int x) { return 2 * x; }

std::string written(const int_fn& f) {
  std::string bytes;
  ferry::output_archive ar(bytes);
  ar(f);
  return bytes;
}

// Calls `callable` on the int `argument` as a worker does: through bytes.
int call_through_bytes(const ferry::detail::callable_any& callable, int argument) {
  std::string in_bytes, out_bytes;
  {
    ferry::output_archive args(in_bytes);
    args(argument);
  }
  ferry::input_archive in(in_bytes);
  ferry::detail::call_stage stage = ferry::detail::call_stage::reading_arguments;
  {
    ferry::output_archive out(out_bytes);
    callable.call_serialized(in, out, stage);
  }
  EXPECT_EQ(stage, ferry::detail::call_stage::writing_result);
  ferry::input_archive result(out_bytes);
  int value = 0;
  result(value);
  return value;
}

TEST(PayloadCode, AClosureIsLoadedAndCalledWithoutItsTypes) {
  const std::string bytes = written(ferry::closure([](int k, int x) { return k + x; }, 20));
  ferry::input_archive in(bytes);
  const auto callable = ferry::detail::load_any_function(in);
  ASSERT_TRUE(callable);
  EXPECT_EQ(call_through_bytes(*callable, 22), 42);
}

TEST(PayloadCode, AFunctionPointerIsCalledThroughTheCallerOfItsSignature) {
  const std::string bytes = written(int_fn(&twice));
  ferry::input_archive in(bytes);
  const auto callable = ferry::detail::load_any_function(in);
  ASSERT_TRUE(callable);
  EXPECT_EQ(call_through_bytes(*callable, 21), 42);
}

TEST(PayloadCode, AnEmptyFunctionLoadsAsNothing) {
  const std::string bytes = written(int_fn{});
  ferry::input_archive in(bytes);
  EXPECT_FALSE(ferry::detail::load_any_function(in));
}

TEST(PayloadCode, TheCallsOwnExceptionLeavesItAtTheCallingStage) {
  const std::string bytes = written(int_fn([](int) -> int { throw std::range_error("out of range"); }));
  ferry::input_archive in(bytes);
  const auto callable = ferry::detail::load_any_function(in);
  std::string in_bytes, out_bytes;
  {
    ferry::output_archive args(in_bytes);
    args(1);
  }
  ferry::input_archive args(in_bytes);
  ferry::output_archive out(out_bytes);
  ferry::detail::call_stage stage = ferry::detail::call_stage::reading_arguments;
  EXPECT_THROW(callable->call_serialized(args, out, stage), std::range_error);
  EXPECT_EQ(stage, ferry::detail::call_stage::calling);
}

TEST(PayloadCode, AClosureOfThisProgramNamesItAsItsOneModule) {
  std::string bytes;
  ferry::output_archive ar(bytes);
  EXPECT_FALSE(ferry::detail::names_main_program(ar)) << "nothing written yet";
  ar(int_fn(ferry::closure([](int k, int x) { return k * x; }, 3)));
  EXPECT_TRUE(ferry::detail::names_main_program(ar));
  const auto modules = ferry::detail::modules_named(ar);
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_TRUE(modules[0].main_program);
  EXPECT_EQ(modules[0].path, ferry::detail::executable_path());
  EXPECT_EQ(modules[0].build_id, ferry::detail::file_build_id(modules[0].path));
  EXPECT_FALSE(modules[0].build_id.empty());
}

TEST(PayloadCode, AFilesBuildIdIsEmptyWithoutOneAndAnErrorForWhatIsNoElfFile) {
  EXPECT_TRUE(ferry::detail::file_build_id(FERRY_TEST_PLUGIN_NO_BUILD_ID).empty());
  EXPECT_THROW(ferry::detail::file_build_id(FERRY_TEST_NOT_ELF), ferry::module_load_error);
}

TEST(PayloadCode, TheProgramImportsWhatItCallsInSharedLibrariesAlone) {
  EXPECT_TRUE(ferry::detail::program_imports("_Znwm"));  // operator new, from libstdc++
  // ferry's code is linked into this test, not imported from a library.
  EXPECT_FALSE(ferry::detail::program_imports("_ZN5ferry15serve_if_workerEiPPc"));
  EXPECT_FALSE(ferry::detail::program_imports("no_such_symbol_anywhere"));
}

}  // namespace
