// Copyright ferry authors.
#include "executor/core/policy_snapshot.h"

#include <filesystem>
#include <system_error>

#include <serialize/error.h>
#include <serialize/module_policy.h>

namespace ferry::detail {

policy_snapshot snapshot_module_policy() {
  policy_snapshot s;
  for (const auto& p : allowed_modules()) s.allowed_modules.push_back(p.string());
  for (const auto& p : module_search_paths()) s.module_search_paths.push_back(p.string());
  return s;
}

void apply_module_policy(const policy_snapshot& policy, policy_host host) {
  for (const std::string& path : policy.allowed_modules) {
    try {
      allow_module(path);
    } catch (const error&) {
      if (host == policy_host::same) throw;
    }
  }
  for (const std::string& dir : policy.module_search_paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;  // not on this host
    try {
      add_module_search_path(dir);
    } catch (const error&) {
      if (host == policy_host::same) throw;
    }
  }
}

}  // namespace ferry::detail
