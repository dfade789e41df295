// The consumer's closure on the ranks of an MPI job, through ferry::mpi from
// the package: run under `mpirun -n 2` with the start method of the agent's
// workers as the argument; rank 0 prints one line.
#include <iostream>
#include <string>

#include <executor/mpi_pool.h>

#include "closures.h"

int main(int argc, char** argv) {
  ferry::serve_if_mpi_agent(argc, argv);

  ferry::mpi_pool_options options;
  options.local.max_workers = 1;
  options.local.start = ferry::start_method_from_string(argc > 1 ? argv[1] : "spawn");
  ferry::mpi_pool pool(options);
  ferry::function<std::string(std::string)> greet = make_greeter("hello");
  std::cout << "mpi " << to_string(options.local.start) << ": "
            << pool.submit(greet, std::string("mpi")).get() << "\n";
  return 0;
}
