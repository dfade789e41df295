// Copyright ferry authors. Internal: this process's module policy
// (allow_module, add_module_search_path) as it travels to the processes
// that run its tasks: a pool's workers in their hello, an MPI pool's agents
// in their configuration, and those agents' workers in turn.
#ifndef FERRY_SRC_EXECUTOR_CORE_POLICY_SNAPSHOT_H_
#define FERRY_SRC_EXECUTOR_CORE_POLICY_SNAPSHOT_H_

#include <string>
#include <vector>

#include "internal/export.h"

namespace ferry::detail {

struct policy_snapshot {
  std::vector<std::string> allowed_modules;
  std::vector<std::string> module_search_paths;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(allowed_modules, module_search_paths);
  }
};

// The policy of this process now.
FERRY_INTERNAL_EXPORT policy_snapshot snapshot_module_policy();

// Where a snapshot is applied: on the host that took it (a pool's worker),
// where a path that cannot be allowed is an error; or on another host (an
// MPI agent), which may lack some of its paths and skips them.
enum class policy_host { same, other };

// Adds `policy` to this process's policy; a search directory that does not
// exist here is skipped on either host. Throws ferry::error,
// for policy_host::same only, when a path cannot be allowed.
FERRY_INTERNAL_EXPORT void apply_module_policy(const policy_snapshot& policy, policy_host host);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_POLICY_SNAPSHOT_H_
