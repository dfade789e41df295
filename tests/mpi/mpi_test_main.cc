// Copyright ferry authors.
//
// The MPI tests' program (mpi_pool_test.cc, mpi_core_test.cc,
// agent_test.cc): every rank but 0 serves as an agent; rank 0 runs the
// test its job was started for.
#include <gtest/gtest.h>

#include <string_view>

#include <executor/mpi_pool.h>

int main(int argc, char** argv) {
  // Listing the tests (tests/mpi/discover_tests.cmake) needs no MPI job.
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::string_view(argv[i]) == "--gtest_list_tests";
  if (!listing) ferry::serve_if_mpi_agent(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
