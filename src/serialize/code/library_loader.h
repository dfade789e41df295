// Copyright ferry authors. Internal: the one place that loads code.
#ifndef FERRY_SRC_SERIALIZE_CODE_LIBRARY_LOADER_H_
#define FERRY_SRC_SERIALIZE_CODE_LIBRARY_LOADER_H_

#include <string>

namespace ferry::detail {

// Loads the shared object at a canonical path, through Boost.DLL, for the
// rest of the process's life. The caller has checked the policy and the
// build-id (module.cc). Throws ferry::module_load_error with the loader's
// reason.
void load_library(const std::string& canonical_path);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_CODE_LIBRARY_LOADER_H_
