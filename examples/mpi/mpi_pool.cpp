// Copyright ferry authors.
//
// ferry::mpi_pool. docs/api/mpi.md quotes the regions between
// "[snippet:NAME]" and "[end]"; the test suite runs this program under
// `mpirun -n 3` and compares what rank 0 prints with mpi_pool.expected.
#include <csignal>
#include <iostream>
#include <vector>

#include <executor/mpi_pool.h>

#include "../local_function/local_function.h"

// [snippet:main]
int main(int argc, char** argv) {
  ferry::serve_if_mpi_agent(argc, argv);  // first: every rank but 0 serves here, then exits

  ferry::mpi_pool pool;  // rank 0 only: one node agent per host runs the tasks
  // [end]

  // [snippet:submit]
  // A lambda made inside a function of a shared library, run by workers on
  // another rank that never linked it.
  ferry::future<std::string> local = pool.submit(make_local_function());
  std::cout << local.get() << "\n";  // ok

  std::vector<int> squares = pool.map([](int x) { return x * x; }, std::vector{1, 2, 3, 4}, 2);
  for (int s : squares) std::cout << s << " ";  // 1 4 9 16
  std::cout << "\n";
  // [end]

  // [snippet:errors]
  auto crash = pool.submit([] {
    std::raise(SIGSEGV);
    return 0;
  });
  try {
    crash.get();
  } catch (const ferry::worker_died_error& e) {
    std::cout << "only this task failed\n";  // e.what() names the signal and the host
  }
  std::cout << pool.submit([](int a, int b) { return a + b; }, 2, 3).get() << "\n";  // 5
  // [end]
}
