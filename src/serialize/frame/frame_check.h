// Copyright ferry authors. Internal: the checks of a frame's header and
// checksum (dumps.cc), for ferry::inspect, which reads signed frames without
// their key.
#ifndef FERRY_SRC_SERIALIZE_FRAME_FRAME_CHECK_H_
#define FERRY_SRC_SERIALIZE_FRAME_FRAME_CHECK_H_

#include <string_view>

namespace ferry::detail {

// The payload of `frame` (without a signature), after checking its size,
// `magic`, version, length and checksum. Throws ferry::format_error naming
// the offset.
std::string_view open_frame_with(std::string_view frame, std::string_view magic);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_FRAME_FRAME_CHECK_H_
