// Copyright ferry authors. Internal: the per-payload state that ferry's
// archives carry for the identity coder (identity.cc) and its queries
// (executor_support.cc).
#ifndef FERRY_SRC_SERIALIZE_ARCHIVE_ACCESS_H_
#define FERRY_SRC_SERIALIZE_ARCHIVE_ACCESS_H_

#include <cstddef>
#include <vector>

#include "serialize/archive.h"

namespace ferry::detail {

struct archive_access {
  // The modules named so far in the payload, in order of first appearance.
  static std::vector<const module_record*>& modules(output_archive& ar) { return ar.modules_; }
  static std::vector<const module_record*>& modules(input_archive& ar) { return ar.modules_; }
  // How deeply the ferry::function being read or written is nested.
  static std::size_t& depth(input_archive& ar) { return ar.depth_; }
  static std::size_t& depth(output_archive& ar) { return ar.depth_; }
  static bool& vouched(input_archive& ar) { return ar.vouched_; }
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_ARCHIVE_ACCESS_H_
