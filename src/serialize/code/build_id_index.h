// Copyright ferry authors. Internal: finding a module's file by its GNU
// build-id in the search directories (ferry::add_module_search_path).
//
// Each directory is looked at two ways: the debuginfod layout
// `dir/.build-id/ab/cdef...` (the build-id's first byte in hex, then the
// rest), one path built from the id; and an index of the regular files
// directly in it, built on the first lookup that needs it and kept while the
// directory's modification time is unchanged, so that a directory of
// thousands of files is read once, not at every load. Only files that
// resolve (symlinks and "..") inside their directory count.
//
// Thread-safety: may be called from any thread.
#ifndef FERRY_SRC_SERIALIZE_CODE_BUILD_ID_INDEX_H_
#define FERRY_SRC_SERIALIZE_CODE_BUILD_ID_INDEX_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "serialize/code/fork_guard.h"

namespace ferry::detail {

// The canonical path of a file whose build-id is `build_id` (raw bytes) in
// one of `directories` (canonical), or "" if none has it.
std::string find_by_build_id(const std::vector<std::filesystem::path>& directories,
                             std::string_view build_id);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_CODE_BUILD_ID_INDEX_H_
