// Copyright ferry authors. Internal: applying the module policy.
#ifndef FERRY_SRC_SERIALIZE_CODE_MODULE_POLICY_INTERNAL_H_
#define FERRY_SRC_SERIALIZE_CODE_MODULE_POLICY_INTERNAL_H_

#include <filesystem>
#include <string>
#include <vector>

#include <serialize/signing_key.h>

#include "internal/export.h"

namespace ferry::detail {

// Whether canonical path p is `root` or lies under it, compared by component
// so that /a/bc is not under /a/b.
bool path_within(const std::filesystem::path& p, const std::filesystem::path& root);

// Whether ferry::trust_signed_code was given this key.
bool trusts_code_signed_by(const signing_key& key);

// The existing files, in order of preference, that the policy allows to be
// loaded for a module recorded at `path`: path itself when it resolves into
// an allowed file or directory, then a file of the same name in each allowed
// directory. Each is a canonical path. Opens no file.
std::vector<std::string> allowed_candidates(const std::string& path);

// Takes a directory given to add_module_search_path out of the search
// path and the allowed places, for one about to be removed (an MPI agent's
// directory of shipped modules, which ends with its pool): a worker started
// later is not handed a place that is gone. Nothing if it is not there.
FERRY_INTERNAL_EXPORT void forget_module_search_path(const std::filesystem::path& directory);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_CODE_MODULE_POLICY_INTERNAL_H_
