// Copyright ferry authors.
//
// src/executor/core/fork_generation.h: a forked child knows it is not the
// process that made a pool, at one load.
#include "executor/core/fork_generation.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include <executor/errors.h>

namespace ferry::detail {
namespace {

TEST(ForkGeneration, IsOneNumberInAProcessAndAHigherOneInAForkedChild) {
  const std::uint64_t here = fork_generation();
  EXPECT_EQ(fork_generation(), here);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(fork_generation() > here ? 0 : 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(fork_generation(), here) << "the parent's is unchanged";
}

TEST(ForkGeneration, TheErrorSaysWhatWasUsedAndWhatToDoInstead) {
  try {
    throw_used_after_fork("a pool");
  } catch (const error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ferry: a pool made before fork() was used in the child"), std::string::npos) << what;
    EXPECT_NE(what.find("make a new pool in the child"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ferry::detail
