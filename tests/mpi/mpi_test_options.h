// Copyright ferry authors.
//
// What the MPI pool's tests share: the options of a test's pool, under the
// start method in FERRY_TEST_START.
#ifndef FERRY_TESTS_MPI_MPI_TEST_OPTIONS_H_
#define FERRY_TESTS_MPI_MPI_TEST_OPTIONS_H_

#include <cstdlib>
#include <memory>

#include <executor/mpi_pool.h>

#include "../executor/event_recorder.h"
#include "../executor/test_harness.h"

namespace mpi_test {

inline ferry::mpi_pool_options options() {
  ferry::mpi_pool_options o;
  o.local.max_workers = 2;
  const char* start = std::getenv("FERRY_TEST_START");
  if (start != nullptr) o.local.start = ferry::start_method_from_string(start);
  return o;
}

// options() whose pool tells `seen` (on rank 0) and, if given, writes `trace`.
inline ferry::mpi_pool_options observed(const std::shared_ptr<ferry_test::event_recorder>& seen,
                                        const ferry_test::trace_file* trace = nullptr) {
  ferry::mpi_pool_options o = options();
  o.local.observer = seen;
  if (trace != nullptr) o.local.trace = trace->path();
  return o;
}

}  // namespace mpi_test

#endif  // FERRY_TESTS_MPI_MPI_TEST_OPTIONS_H_
