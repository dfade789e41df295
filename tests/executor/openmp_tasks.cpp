// Copyright ferry authors.
#include "openmp_tasks.h"

#include <omp.h>

#include <cstdlib>

namespace openmp_tasks {

ferry::function<int()> max_threads() {
  return [] { return omp_get_max_threads(); };
}

ferry::function<std::string(std::string)> variable() {
  return [](std::string name) -> std::string {
    const char* value = std::getenv(name.c_str());
    return value != nullptr ? value : "(unset)";
  };
}

}  // namespace openmp_tasks
