// Copyright ferry authors.
//
// Tasks that report what a worker's OpenMP runtime and environment say
// (pool_options::inner_threads). A shared library of their own, linked
// with OpenMP, so that a plugin worker loads the runtime only with them.
#ifndef FERRY_TESTS_EXECUTOR_OPENMP_TASKS_H_
#define FERRY_TESTS_EXECUTOR_OPENMP_TASKS_H_

#include <string>

#include <serialize/function.h>

namespace openmp_tasks {

// omp_get_max_threads() in the worker: the threads its next parallel
// region would start.
ferry::function<int()> max_threads();
// The worker's value of a variable, or "(unset)".
ferry::function<std::string(std::string)> variable();

}  // namespace openmp_tasks

#endif  // FERRY_TESTS_EXECUTOR_OPENMP_TASKS_H_
