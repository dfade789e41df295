// Copyright ferry authors.
#include "executor/worker/inner_threads.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "executor/pool/launcher.h"

namespace ferry::detail {
namespace {

// Each variable, and the function of the library that reads it that
// changes the count once the library is loaded (empty: none). The
// variables are joblib's list, less what only Python reads.
struct inner_library {
  std::string_view variable;
  const char* setter;
};
constexpr std::array<inner_library, 6> libraries{{
    {"OMP_NUM_THREADS", "omp_set_num_threads"},
    {"OPENBLAS_NUM_THREADS", "openblas_set_num_threads"},
    {"MKL_NUM_THREADS", "MKL_Set_Num_Threads"},
    {"BLIS_NUM_THREADS", "bli_thread_set_num_threads"},
    {"VECLIB_MAXIMUM_THREADS", nullptr},
    {"NUMEXPR_NUM_THREADS", nullptr},
}};

// Whether the pool's process passes `name` on to its workers.
bool inherited(const std::string& name, const std::vector<std::string>& unset_env) {
  const char* value = std::getenv(name.c_str());
  return value != nullptr && !is_unset(name + "=" + value, unset_env);
}

}  // namespace

std::map<std::string, std::string> inner_thread_variables(const pool_options& options,
                                                          std::size_t cpus, std::size_t workers) {
  std::map<std::string, std::string> out;
  if (options.inner_threads == std::size_t{0}) return out;
  const std::size_t count =
      options.inner_threads.value_or(std::max<std::size_t>(1, cpus / std::max<std::size_t>(workers, 1)));
  for (const inner_library& library : libraries) {
    std::string name(library.variable);
    if (options.env.count(name) != 0 || inherited(name, options.unset_env)) continue;
    out.emplace(std::move(name), std::to_string(count));
  }
  return out;
}

void apply_inner_thread_counts(const std::map<std::string, std::string>& env) {
  for (const inner_library& library : libraries) {
    if (library.setter == nullptr) continue;
    const auto it = env.find(std::string(library.variable));
    if (it == env.end()) continue;
    int count = 0;
    const std::string& value = it->second;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), count);
    if (error != std::errc() || end != value.data() + value.size() || count < 1) continue;
    // Each takes an int, except BLIS's, which takes its dim_t (a 64-bit
    // integer on the platforms ferry runs on).
    void* symbol = ::dlsym(RTLD_DEFAULT, library.setter);
    if (symbol == nullptr) continue;
    if (library.variable == "BLIS_NUM_THREADS") {
      reinterpret_cast<void (*)(long)>(symbol)(count);
    } else {
      reinterpret_cast<void (*)(int)>(symbol)(count);
    }
  }
}

}  // namespace ferry::detail
