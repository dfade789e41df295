// Copyright ferry authors.
#include <executor/start_method.h>

#include <cstdlib>
#include <string>

#include <serialize/error.h>

namespace ferry {

const char* to_string(start_method method) noexcept {
  switch (method) {
    case start_method::spawn: return "spawn";
    case start_method::fork: return "fork";
    case start_method::plugin: return "plugin";
    case start_method::in_process: return "in_process";
  }
  return "unknown";
}

start_method start_method_from_string(std::string_view name) {
  for (start_method m : {start_method::spawn, start_method::fork, start_method::plugin, start_method::in_process})
    if (name == to_string(m)) return m;
  throw error("ferry: unknown start method '" + std::string(name) +
                              "'; the valid names are spawn, fork, plugin and in_process");
}

start_method start_method_from_env(start_method fallback) {
  const char* name = std::getenv("FERRY_START_METHOD");
  return name == nullptr || *name == '\0' ? fallback : start_method_from_string(name);
}

}  // namespace ferry
