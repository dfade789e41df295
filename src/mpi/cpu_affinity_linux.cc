// Copyright ferry authors.
#include "mpi/cpu_affinity_linux.h"

#include <sched.h>

#include <cstdlib>

namespace ferry::detail::mpi {

void use_every_allowed_cpu() noexcept {
  // The kernel intersects the mask with the cpuset's CPUs, so asking for
  // every CPU there could be gives exactly the allowed ones.
  constexpr int most = 8192;
  cpu_set_t* set = CPU_ALLOC(most);
  if (set == nullptr) return;
  const std::size_t size = CPU_ALLOC_SIZE(most);
  CPU_ZERO_S(size, set);
  for (int cpu = 0; cpu < most; ++cpu) CPU_SET_S(cpu, size, set);
  (void)::sched_setaffinity(0, size, set);
  CPU_FREE(set);
}

std::size_t cpus_given_by_batch_system() noexcept {
  const char* given = std::getenv("SLURM_CPUS_ON_NODE");
  if (given == nullptr) return 0;
  char* end = nullptr;
  const unsigned long n = std::strtoul(given, &end, 10);
  return end != given && *end == '\0' && n > 0 && n < 1'000'000 ? n : 0;
}

}  // namespace ferry::detail::mpi
