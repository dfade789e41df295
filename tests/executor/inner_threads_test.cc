// Copyright ferry authors.
//
// Which variables a pool sets to bound its workers' inner threads
// (src/executor/worker/inner_threads.h), on the function itself; the
// workers' view is tests/executor/openmp_workers_test.cc.
#include "executor/worker/inner_threads.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace ferry::detail {
namespace {

// Options whose pool's process passes none of the variables on.
pool_options clean() {
  pool_options o;
  o.unset_env = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                 "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"};
  return o;
}

TEST(InnerThreads, EachWorkerGetsTheCpusDividedByTheWorkersRoundedDown) {
  const auto v = inner_thread_variables(clean(), 16, 3);
  EXPECT_EQ(v.size(), 6u);
  EXPECT_EQ(v.at("OMP_NUM_THREADS"), "5");
  EXPECT_EQ(v.at("NUMEXPR_NUM_THREADS"), "5");
}

TEST(InnerThreads, MoreWorkersThanCpusStillGivesEachOneThread) {
  EXPECT_EQ(inner_thread_variables(clean(), 2, 8).at("OMP_NUM_THREADS"), "1");
  EXPECT_EQ(inner_thread_variables(clean(), 4, 0).at("OMP_NUM_THREADS"), "4");
}

TEST(InnerThreads, AnExplicitCountOverridesTheShare) {
  pool_options o = clean();
  o.inner_threads = 6;
  EXPECT_EQ(inner_thread_variables(o, 2, 2).at("MKL_NUM_THREADS"), "6");
}

TEST(InnerThreads, ZeroSetsNothing) {
  pool_options o = clean();
  o.inner_threads = 0;
  EXPECT_TRUE(inner_thread_variables(o, 16, 2).empty());
}

TEST(InnerThreads, AVariableInEnvIsTheUsersAndLeftOut) {
  pool_options o = clean();
  o.env = {{"OMP_NUM_THREADS", "9"}};
  const auto v = inner_thread_variables(o, 16, 2);
  EXPECT_EQ(v.count("OMP_NUM_THREADS"), 0u);
  EXPECT_EQ(v.at("OPENBLAS_NUM_THREADS"), "8");
}

TEST(InnerThreads, AnInheritedVariableIsLeftOutUnlessUnsetEnvRemovesIt) {
  ::setenv("BLIS_NUM_THREADS", "2", 1);
  pool_options o;
  EXPECT_EQ(inner_thread_variables(o, 16, 2).count("BLIS_NUM_THREADS"), 0u);
  o.unset_env = {"BLIS_*"};
  EXPECT_EQ(inner_thread_variables(o, 16, 2).at("BLIS_NUM_THREADS"), "8");
  ::unsetenv("BLIS_NUM_THREADS");
}

}  // namespace
}  // namespace ferry::detail
