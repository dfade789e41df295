// Copyright ferry authors. Internal: the per-payload state that ferry's
// archives carry for the identity coder (identity.cc) and its queries
// (payload_code.cc).
#ifndef FERRY_SRC_SERIALIZE_FRAME_ARCHIVE_ACCESS_H_
#define FERRY_SRC_SERIALIZE_FRAME_ARCHIVE_ACCESS_H_

#include <cstddef>
#include <string>
#include <vector>

#include <serialize/archive.h>

namespace ferry::detail {

struct archive_access {
  // The modules named so far in the payload, in order of first appearance.
  static std::vector<const module_record*>& modules(output_archive& ar) { return ar.modules_; }
  static std::vector<named_module>& modules(input_archive& ar) { return ar.modules_; }
  // Whether some code named so far can only run from this executable.
  static bool& needs_main_program(output_archive& ar) { return ar.needs_main_program_; }
  // How deeply the ferry::function being read or written is nested.
  static std::size_t& depth(input_archive& ar) { return ar.depth_; }
  static std::size_t& depth(output_archive& ar) { return ar.depth_; }
  static bool& vouched(input_archive& ar) { return ar.vouched_; }
  static bool& listed_at_end(output_archive& ar) { return ar.listed_at_end_; }
  static bool& listed_at_end(input_archive& ar) { return ar.listed_at_end_; }
  static std::string& out(output_archive& ar) { return ar.out_; }
  // Where shared buffers' descriptors go, or null: their bytes go inline.
  static fd_list* attachments(output_archive& ar) { return ar.attachments_; }
  static std::span<const int> attachments(input_archive& ar) { return ar.attachments_; }
  // The bytes not yet read; a directory at their end is cut off by
  // setting `end`.
  static const char*& end(input_archive& ar) { return ar.end_; }
  static const char* begin(input_archive& ar) { return ar.begin_; }
  static std::size_t base_offset(input_archive& ar) { return ar.base_offset_; }
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_FRAME_ARCHIVE_ACCESS_H_
