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
  // A name with '=' set another variable in a spawned worker ("A=B" = "x"
  // gave A the value "B=x") and none in a forked one; an empty one, none.
  const auto no_name = [](const std::string& name) {
    return name.empty() || name.find_first_of(std::string_view("=\0", 2)) != std::string::npos;
  };
  const auto shown = [](const std::string& name) {
    std::string out;  // a NUL would end what()
    for (char c : name) out += c == '\0' ? std::string("\\0") : std::string(1, c);
    return out;
  };
  for (const auto& [name, value] : options.env) {
    if (no_name(name) || value.find('\0') != std::string::npos)
      throw error("ferry: " + std::string(prefix) + "::env has the variable '" + shown(name) +
                  "': a name must be non-empty and hold no '=' or NUL, and a value no NUL");
  }
  // Such a name removed nothing, silently, where the user meant to remove
  // something ("A=B" for A, "" for every variable, which is "*").
  for (const std::string& name : options.unset_env) {
    if (no_name(name))
      throw error("ferry: " + std::string(prefix) + "::unset_env names the variable '" + shown(name) +
                  "', which no variable can have: a name must be non-empty and hold no '=' or NUL (a "
                  "prefix ends in '*': \"OMPI_*\"; \"*\" removes every variable)");
  }
}

}  // namespace ferry::detail
