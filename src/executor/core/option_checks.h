// Copyright ferry authors. Internal: the options both pools refuse before
// anything runs, each with a ferry::error that names the option and says
// what to give instead. A value the pools would take literally but no one
// means (a task timeout of 0 ms kills every task's worker at once) is
// refused here rather than obeyed.
#ifndef FERRY_SRC_EXECUTOR_CORE_OPTION_CHECKS_H_
#define FERRY_SRC_EXECUTOR_CORE_OPTION_CHECKS_H_

#include <chrono>
#include <optional>
#include <string_view>

#include <executor/pool_options.h>
#include "internal/export.h"

namespace ferry::detail {

// A task timeout, set: more than 0 ms. `option` names it in the error,
// e.g. "task_options::timeout". Throws ferry::error.
FERRY_INTERNAL_EXPORT void check_task_timeout(const std::optional<std::chrono::milliseconds>& timeout,
                                              std::string_view option);

// What a pool's options must be (a task_timeout more than 0 ms; env names
// that are names), for process_pool's constructor and, of
// mpi_pool_options::local, mpi_pool's. `prefix` names the struct in the
// error: "pool_options" or "mpi_pool_options::local". Throws ferry::error.
FERRY_INTERNAL_EXPORT void check_pool_options(const pool_options& options, std::string_view prefix);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_OPTION_CHECKS_H_
