// Built with nothing but `pkg-config --cflags --libs ferry-mpi`; run under
// `mpirun -n 2`.
#include <iostream>

#include <executor/mpi_pool.h>

int main(int argc, char** argv) {
  ferry::serve_if_mpi_agent(argc, argv);
  ferry::mpi_pool pool;
  std::cout << "pkg-config mpi: " << pool.submit([](int x) { return 2 * x; }, 21).get() << "\n";
}
