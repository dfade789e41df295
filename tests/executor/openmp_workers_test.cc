// Copyright ferry authors.
//
// pool_options::inner_threads: a pool's workers run their OpenMP and BLAS
// libraries with their share of the CPUs, unless the user chose.
#include <cstdlib>
#include <string>

#include "openmp_tasks.h"
#include "test_harness.h"

namespace {

using ferry_test::get_within;

constexpr const char* variables[] = {"OMP_NUM_THREADS",      "OPENBLAS_NUM_THREADS",  "MKL_NUM_THREADS",
                                     "BLIS_NUM_THREADS",     "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"};

class OpenMpWorkers : public ferry_test::ExecutorTest {
 protected:
  // A pool of `workers` whose workers do not inherit this process's choice
  // (the machine running the tests may have set one).
  static ferry::pool_options options(std::size_t workers) {
    ferry::pool_options o = ferry_test::options(workers);
    o.unset_env = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                   "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"};
    return o;
  }
  static std::string variable(ferry::process_pool& pool, const std::string& name) {
    auto f = pool.submit(openmp_tasks::variable(), name);
    return get_within(f);
  }
};

TEST_F(OpenMpWorkers, EachOfTwoWorkersRunsOpenMpOnHalfTheCpus) {
  ferry::process_pool pool(options(2));
  const int share = static_cast<int>(std::max<std::size_t>(1, ferry::cpu_count() / 2));
  auto f = pool.submit(openmp_tasks::max_threads());
  EXPECT_EQ(get_within(f), share);
  for (const char* name : variables) EXPECT_EQ(variable(pool, name), std::to_string(share)) << name;
}

TEST_F(OpenMpWorkers, AnInnerThreadsCountIsWhatEveryLibraryIsTold) {
  ferry::pool_options o = options(1);
  o.inner_threads = 3;
  ferry::process_pool pool(o);
  auto f = pool.submit(openmp_tasks::max_threads());
  EXPECT_EQ(get_within(f), 3);
  for (const char* name : variables) EXPECT_EQ(variable(pool, name), "3") << name;
}

// The runtime read its variable when the worker's program loaded it (spawn)
// or when this process did (fork); it is told the user's count all the same.
TEST_F(OpenMpWorkers, TheUsersOwnCountInEnvWinsOverThePoolsShare) {
  ferry::pool_options o = options(2);
  o.env = {{"OMP_NUM_THREADS", "5"}};
  ferry::process_pool pool(o);
  auto f = pool.submit(openmp_tasks::max_threads());
  EXPECT_EQ(get_within(f), 5);
  const std::string share = std::to_string(std::max<std::size_t>(1, ferry::cpu_count() / 2));
  EXPECT_EQ(variable(pool, "OPENBLAS_NUM_THREADS"), share);
}

TEST_F(OpenMpWorkers, AVariableThePoolsProcessPassesOnIsLeftAsItIs) {
  ::setenv("OPENBLAS_NUM_THREADS", "7", 1);
  ferry::pool_options o = ferry_test::options(2);
  o.inner_threads = 1;
  o.unset_env = {"NUMEXPR_NUM_THREADS"};
  {
    ferry::process_pool pool(o);
    EXPECT_EQ(variable(pool, "OPENBLAS_NUM_THREADS"), "7");
    EXPECT_EQ(variable(pool, "NUMEXPR_NUM_THREADS"), "1");
  }
  ::unsetenv("OPENBLAS_NUM_THREADS");
}

TEST_F(OpenMpWorkers, ZeroInnerThreadsSetsNothing) {
  ferry::pool_options o = options(2);
  o.inner_threads = 0;
  ferry::process_pool pool(o);
  for (const char* name : variables) EXPECT_EQ(variable(pool, name), "(unset)") << name;
}

}  // namespace
