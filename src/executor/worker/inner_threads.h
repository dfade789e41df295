// Copyright ferry authors. Internal: the threads a worker's OpenMP and BLAS
// libraries start (pool_options::inner_threads). A pool of N workers on C
// CPUs whose tasks each start C threads runs N x C of them; each worker is
// told to start C / N instead, through the variables these libraries read
// when they load and, for a library already loaded (a forked worker's, or a
// spawned worker's that the program links), through its own setter.
#ifndef FERRY_SRC_EXECUTOR_WORKER_INNER_THREADS_H_
#define FERRY_SRC_EXECUTOR_WORKER_INNER_THREADS_H_

#include <cstddef>
#include <map>
#include <string>

#include <executor/pool_options.h>

namespace ferry::detail {

// The variables a pool sets in its workers to bound their inner threads:
// each that `options` leaves to the pool, i.e. that neither options.env
// sets nor the pool's process passes on (set in its environment and not
// removed by options.unset_env), to options.inner_threads, or when that is
// unset to max(1, cpus / workers). None when options.inner_threads is 0.
std::map<std::string, std::string> inner_thread_variables(const pool_options& options,
                                                          std::size_t cpus, std::size_t workers);

// In a worker, after `env` (the variables the pool set) is in its
// environment: tells each such library already loaded into the process of
// the count `env` gives it (omp_set_num_threads, openblas_set_num_threads,
// MKL_Set_Num_Threads, bli_thread_set_num_threads), found by symbol. A
// library loaded later reads its variable itself.
void apply_inner_thread_counts(const std::map<std::string, std::string>& env);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WORKER_INNER_THREADS_H_
