// Copyright ferry authors.
//
// The frame around a dumps payload (serialize/wire_format.h), plain and
// signed.
#include <cstring>
#include <string>

#include "serialize/frame/crc32c.h"
#include "serialize/frame/frame_check.h"
#include "serialize/code/module_policy_internal.h"
#include <serialize/dumps.h>
#include <serialize/error.h>
#include "serialize/frame/hmac.h"
#include <serialize/wire_format.h>

namespace ferry::detail {
namespace {

hmac_sha256::tag signature_of(std::string_view bytes, const signing_key& key) {
  hmac_sha256 mac(key.bytes());
  mac.update(bytes);
  return mac.finish();
}

}  // namespace

void seal_frame(std::string& frame) {
  const std::uint64_t length = frame.size() - wire::header_size;
  const std::uint32_t crc = crc32c(frame.data() + wire::header_size, length);
  std::memcpy(frame.data(), wire::magic.data(), wire::magic.size());
  frame[3] = static_cast<char>(wire::version);
  std::memcpy(frame.data() + 4, &crc, sizeof crc);
  std::memcpy(frame.data() + 8, &length, sizeof length);
}

std::string_view open_frame(std::string_view frame) {
  if (frame.substr(0, wire::signed_magic.size()) == wire::signed_magic)
    throw format_error(0, "the frame is signed (magic \"FRS\"): pass its ferry::signing_key to loads");
  return open_frame_with(frame, wire::magic);
}

void sign_frame(std::string& frame, const signing_key& key) {
  seal_frame(frame);
  std::memcpy(frame.data(), wire::signed_magic.data(), wire::signed_magic.size());
  const hmac_sha256::tag tag = signature_of(frame, key);
  frame.append(reinterpret_cast<const char*>(tag.data()), tag.size());
}

std::string_view open_signed_frame(std::string_view frame, const signing_key& key,
                                   bool& trusted_for_code) {
  if (frame.substr(0, wire::magic.size()) == wire::magic)
    throw authentication_error("the frame is not signed, but loads was given a signing key");
  if (frame.size() < wire::header_size + wire::signature_size)
    throw authentication_error("a signed frame has at least " +
                               std::to_string(wire::header_size + wire::signature_size) +
                               " bytes; only " + std::to_string(frame.size()) + " are present");
  const std::string_view signed_part = frame.substr(0, frame.size() - wire::signature_size);
  const hmac_sha256::tag expected = signature_of(signed_part, key);
  if (!hmac_sha256::equal(expected, reinterpret_cast<const unsigned char*>(signed_part.end())))
    throw authentication_error(
        "the signature does not match: the frame was signed with another key, or changed after "
        "it was signed");
  trusted_for_code = trusts_code_signed_by(key);
  return open_frame_with(signed_part, wire::signed_magic);
}

std::string_view open_frame_with(std::string_view frame, std::string_view magic) {
  if (frame.size() < wire::header_size)
    throw format_error(frame.size(), "truncated: a frame has a " +
                                         std::to_string(wire::header_size) +
                                         "-byte header, only " + std::to_string(frame.size()) +
                                         " bytes present");
  if (frame.substr(0, magic.size()) != magic)
    throw format_error(0, "not ferry data: expected magic \"" + std::string(magic) + "\"");
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
