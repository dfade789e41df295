// Copyright ferry authors.
//
// MPI for the unit tests of src/mpi that need a communicator but no job:
// initialized on first use as a singleton (no mpirun: one rank, this
// process, through shared memory within the process only) and finalized
// at exit. About 0.15 s.
#ifndef FERRY_TESTS_MPI_SINGLETON_MPI_H_
#define FERRY_TESTS_MPI_SINGLETON_MPI_H_

#include <gtest/gtest.h>

#include <mpi.h>

#include <cstdlib>

namespace ferry_test {

inline void ensure_mpi() {
  static const bool ready = [] {
    ::setenv("OMPI_MCA_pml", "ob1", 0);
    ::setenv("OMPI_MCA_btl", "self", 0);
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return false;
    std::atexit([] { MPI_Finalize(); });
    return true;
  }();
  ASSERT_TRUE(ready) << "MPI_Init_thread failed";
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_MPI_SINGLETON_MPI_H_
