// Copyright ferry authors.
//
// Workers whose tasks use OpenMP (or a threaded BLAS) share the CPUs
// instead of each starting one thread per CPU (pool_options::inner_threads).
// docs/api/executor.md quotes the regions between "[snippet:NAME]" and
// "[end]"; the test suite runs this program and compares its output with
// inner_threads.expected. Built with OpenMP.
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  // The machine running the example may have chosen for its programs.
  ::unsetenv("OMP_NUM_THREADS");

  // [snippet:inner_threads]
  const int cpus = static_cast<int>(ferry::cpu_count());
  ferry::process_pool pool({.max_workers = 2});
  // Each of the 2 workers may start cpus / 2 threads (at least 1), not cpus.
  const int threads = pool.submit([] { return omp_get_max_threads(); }).get();
  std::cout << (threads == std::max(1, cpus / 2)) << "\n";  // 1

  ferry::process_pool chosen({.max_workers = 2, .env = {{"OMP_NUM_THREADS", "3"}}});
  std::cout << chosen.submit([] { return omp_get_max_threads(); }).get() << "\n";  // 3

  ferry::process_pool unbounded({.max_workers = 2, .inner_threads = 0});
  std::cout << (unbounded.submit([] { return omp_get_max_threads(); }).get() == cpus) << "\n";  // 1
  // [end]
}
