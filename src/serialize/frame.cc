// Copyright ferry authors.
//
// The frame around a dumps payload (serialize/wire_format.h).
#include <cstring>
#include <string>

#include "crc32c.h"
#include "serialize/dumps.h"
#include "serialize/error.h"
#include "serialize/wire_format.h"

namespace ferry::detail {

void seal_frame(std::string& frame) {
  const std::uint64_t length = frame.size() - wire::header_size;
  const std::uint32_t crc = crc32c(frame.data() + wire::header_size, length);
  std::memcpy(frame.data(), wire::magic.data(), wire::magic.size());
  frame[3] = static_cast<char>(wire::version);
  std::memcpy(frame.data() + 4, &crc, sizeof crc);
  std::memcpy(frame.data() + 8, &length, sizeof length);
}

std::string_view open_frame(std::string_view frame) {
  if (frame.size() < wire::header_size)
    throw format_error(frame.size(), "truncated: a frame has a " +
                                         std::to_string(wire::header_size) +
                                         "-byte header, only " + std::to_string(frame.size()) +
                                         " bytes present");
  if (frame.substr(0, wire::magic.size()) != wire::magic)
    throw format_error(0, "not ferry data: expected magic \"FRY\"");
  const auto version = static_cast<std::uint8_t>(frame[3]);
  if (version != wire::version)
    throw format_error(3, "wire version " + std::to_string(version) +
                              ", but this build reads version " +
                              std::to_string(wire::version));
  std::uint32_t crc;
  std::uint64_t length;
  std::memcpy(&crc, frame.data() + 4, sizeof crc);
  std::memcpy(&length, frame.data() + 8, sizeof length);
  const std::size_t present = frame.size() - wire::header_size;
  if (length != present)
    throw format_error(8, "the header announces a payload of " + std::to_string(length) +
                              " bytes but " + std::to_string(present) + " are present" +
                              (length > present ? " (truncated)" : ""));
  const std::string_view payload = frame.substr(wire::header_size);
  const std::uint32_t actual = crc32c(payload.data(), payload.size());
  if (actual != crc)
    throw format_error(4, "checksum mismatch: the payload is corrupt (CRC-32C recorded " +
                              std::to_string(crc) + ", computed " + std::to_string(actual) + ")");
  return payload;
}

}  // namespace ferry::detail
