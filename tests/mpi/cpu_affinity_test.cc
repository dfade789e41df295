// Copyright ferry authors.
//
// An MPI agent's claim on its host's CPUs (src/mpi/cpu_affinity_linux.cc):
// undoing a launcher's binding, and the CPUs a batch system says it gave.
#include "mpi/cpu_affinity_linux.h"

#include <sched.h>
#include <stdlib.h>

#include <gtest/gtest.h>

namespace {

int cpus_in_mask() {
  cpu_set_t set;
  return ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

}  // namespace

// As mpirun binds a rank of a small job to one core.
TEST(CpuAffinity, AnAgentBoundToOneCpuGetsBackEveryCpuItWasAllowed) {
  cpu_set_t all, one;
  ASSERT_EQ(::sched_getaffinity(0, sizeof all, &all), 0);
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &one);
      break;
    }
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);
  ASSERT_EQ(cpus_in_mask(), 1);
  ferry::detail::mpi::use_every_allowed_cpu();
  EXPECT_EQ(cpus_in_mask(), CPU_COUNT(&all));
  ASSERT_EQ(::sched_setaffinity(0, sizeof all, &all), 0);
}

TEST(CpuAffinity, SlurmsCpusOnTheNodeCountOnlyAsAPositiveNumber) {
  using ferry::detail::mpi::cpus_given_by_batch_system;
  ::unsetenv("SLURM_CPUS_ON_NODE");
  EXPECT_EQ(cpus_given_by_batch_system(), 0u);
  ::setenv("SLURM_CPUS_ON_NODE", "4", 1);
  EXPECT_EQ(cpus_given_by_batch_system(), 4u);
  for (const char* bad : {"0", "", "4x", "-2", "x", "99999999"}) {
    ::setenv("SLURM_CPUS_ON_NODE", bad, 1);
    EXPECT_EQ(cpus_given_by_batch_system(), 0u) << "'" << bad << "'";
  }
  ::unsetenv("SLURM_CPUS_ON_NODE");
}
