// Copyright ferry authors.
#include "executor/core/option_checks.h"

#include <string>

#include <executor/errors.h>

namespace ferry::detail {

void check_task_timeout(const std::optional<std::chrono::milliseconds>& timeout, std::string_view option) {
  if (!timeout || timeout->count() > 0) return;
  throw error("ferry: " + std::string(option) + " of " + std::to_string(timeout->count()) +
              " ms: a task's timeout must be more than 0 ms (its worker would be killed before the task "
              "could run); leave it unset for no timeout");
}

void check_pool_options(const pool_options& options, std::string_view prefix) {
  check_task_timeout(options.task_timeout, std::string(prefix) + "::task_timeout");
}

}  // namespace ferry::detail
