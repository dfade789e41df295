// Copyright ferry authors.
//
// src/executor/core/option_checks.h: the option values both pools refuse.
#include "executor/core/option_checks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include <executor/errors.h>

#include "../error_message.h"

namespace ferry::detail {
namespace {

using namespace std::chrono_literals;

std::string refusal(const std::optional<std::chrono::milliseconds>& timeout) {
  try {
    check_task_timeout(timeout, "task_options::timeout");
  } catch (const error& e) {
    return e.what();
  }
  return {};
}

TEST(OptionChecks, ATaskTimeoutOfZeroOrLessIsRefusedNamingTheOptionAndItsValue) {
  EXPECT_NE(refusal(0ms).find("task_options::timeout of 0 ms: a task's timeout must be more than 0 ms"),
            std::string::npos)
      << refusal(0ms);
  EXPECT_NE(refusal(-20ms).find("task_options::timeout of -20 ms"), std::string::npos) << refusal(-20ms);
  EXPECT_EQ(refusal(1ms), "");
  EXPECT_EQ(refusal(std::nullopt), "");  // unset: no timeout
}

TEST(OptionChecks, APoolsTaskTimeoutIsNamedWithTheStructItIsIn) {
  pool_options o;
  EXPECT_NO_THROW(check_pool_options(o, "pool_options"));
  o.task_timeout = 0ms;
  const std::string what =
      ferry_test::message_of<error>(ferry_test::thrown_by([&] { check_pool_options(o, "mpi_pool_options::local"); }));
  EXPECT_NE(what.find("mpi_pool_options::local::task_timeout of 0 ms"), std::string::npos) << what;
}

TEST(OptionChecks, AnEnvironmentNameThatIsNoNameIsRefusedAndNamed) {
  for (const std::string& name : {std::string("A=B"), std::string(), std::string("A\0B", 3)}) {
    pool_options o;
    o.env[name] = "x";
    const std::string what =
        ferry_test::message_of<error>(ferry_test::thrown_by([&] { check_pool_options(o, "pool_options"); }));
    EXPECT_NE(what.find("pool_options::env has the variable '"), std::string::npos) << "name '" << name << "': " << what;
    EXPECT_NE(what.find("a name must be non-empty and hold no '='"), std::string::npos) << what;
  }
  pool_options fine;
  fine.env["OMP_NUM_THREADS"] = "a=b c";  // a value may hold '='
  EXPECT_NO_THROW(check_pool_options(fine, "pool_options"));
}

// Such a name was taken and removed nothing, where the user meant to
// remove something.
TEST(OptionChecks, AnUnsetEnvironmentNameThatIsNoNameIsRefusedAndNamed) {
  for (const std::string& name : {std::string("A=B"), std::string(), std::string("A\0B", 3)}) {
    pool_options o;
    o.unset_env = {"OMPI_*", name};
    const std::string what = ferry_test::message_of<error>(
        ferry_test::thrown_by([&] { check_pool_options(o, "mpi_pool_options::local"); }));
    EXPECT_NE(what.find("mpi_pool_options::local::unset_env names the variable '"), std::string::npos)
        << "name '" << name << "': " << what;
    EXPECT_NE(what.find("\"*\" removes every variable"), std::string::npos) << what;
  }
  pool_options fine;
  fine.unset_env = {"OMPI_*", "*", "HOME"};
  EXPECT_NO_THROW(check_pool_options(fine, "pool_options"));
}

}  // namespace
}  // namespace ferry::detail
