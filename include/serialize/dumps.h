// Copyright ferry authors.
//
// ferry::dumps turns a value into a self-checking frame of bytes and
// ferry::loads turns such a frame back into the value:
//
//   ferry::function<int(int)> f = [](int x) { return x * 2; };
//   std::string bytes = ferry::dumps(f);
//   auto g = ferry::loads<ferry::function<int(int)>>(bytes);
//   g(21);  // 42
//
// T is a ferry::function or any type cereal can serialize with ferry's
// archives (std types need their cereal/types/ header, which
// serialize/serialize.h includes for the common ones). The frame layout is in
// serialize/wire_format.h and docs/api/wire_format.md.
//
// With a ferry::signing_key (serialize/signing_key.h), dumps signs the frame
// and loads verifies the signature before it decodes anything.
//
// All are thread-safe. loads never allocates more than a small multiple of
// the input's size for what a length field claims, and never opens a module
// file that the policy (serialize/module_policy.h) does not allow.
#ifndef FERRY_SERIALIZE_DUMPS_H_
#define FERRY_SERIALIZE_DUMPS_H_

#include <string>
#include <string_view>

#include "serialize/archive.h"
#include "serialize/error.h"
#include "serialize/internal/config.h"
#include "serialize/internal/identity.h"
#include "serialize/signing_key.h"
#include "serialize/wire_format.h"

namespace ferry {

namespace detail {
// Fills in the header of a frame whose payload follows wire::header_size
// reserved bytes.
FERRY_SERIALIZE_EXPORT void seal_frame(std::string& frame);
// Checks a frame's header and checksum and returns its payload.
FERRY_SERIALIZE_EXPORT std::string_view open_frame(std::string_view frame);
// seal_frame, then the signed magic and the signature appended.
FERRY_SERIALIZE_EXPORT void sign_frame(std::string& frame, const signing_key& key);
// Checks the signature, then as open_frame. `trusted_for_code`: whether the
// key was given to ferry::trust_signed_code (serialize/module_policy.h).
FERRY_SERIALIZE_EXPORT std::string_view open_signed_frame(std::string_view frame, const signing_key& key,
                                                bool& trusted_for_code);
template <class T>
std::string encode_frame(const T& value) {
  std::string frame(wire::header_size, '\0');
  output_archive ar(frame);
  list_modules_at_end(ar);
  ar(value);
  write_module_directory(ar);
  return frame;
}

// `vouched`: the payload's source vouches for the modules it names
// (internal/identity.h).
template <class T>
T decode_payload(std::string_view payload, bool vouched = false) {
  input_archive ar(payload, wire::header_size);
  read_module_directory(ar);
  if (vouched) vouch_for_modules(ar);
  T value{};
  try {
    ar(value);
  } catch (const cereal::Exception& e) {
    // cereal's own checks (a variant index out of range, ...) become ours.
    throw_cereal_error(ar.offset(), e.what());
  }
  finish_payload(ar);
  return value;
}
}  // namespace detail

// Serializes value. Throws ferry::not_shippable_error when a function's code
// cannot be identified (see function.h), and whatever T's save throws.
template <class T>
std::string dumps(const T& value) {
  std::string frame = detail::encode_frame(value);
  detail::seal_frame(frame);
  return frame;
}

// As dumps(value), and signs the frame with key; only loads with the same
// key accepts it. Also throws ferry::error if OpenSSL fails.
template <class T>
std::string dumps(const T& value, const signing_key& key) {
  std::string frame = detail::encode_frame(value);
  detail::sign_frame(frame, key);
  return frame;
}

// Deserializes a frame made by dumps. T must be default-constructible.
// Throws ferry::format_error (truncated, corrupt, other version, trailing
// bytes; names the offset), the module errors (module_not_allowed_error,
// module_not_found_error, build_id_mismatch_error, module_load_error),
// ferry::unknown_key_error and ferry::type_mismatch_error. A signed frame
// is a format_error here: it needs its key.
template <class T>
T loads(std::string_view bytes) {
  return detail::decode_payload<T>(detail::open_frame(bytes));
}

// Deserializes a frame made by dumps(value, key) with the same key. Throws
// ferry::authentication_error, before decoding anything, if the frame is not
// signed or its signature does not match (another key, or changed bytes);
// then as loads(bytes). When the key is trusted for code
// (ferry::trust_signed_code), the modules the bytes name may be loaded
// from their recorded paths without being allowed.
template <class T>
T loads(std::string_view bytes, const signing_key& key) {
  bool trusted_for_code = false;
  const std::string_view payload = detail::open_signed_frame(bytes, key, trusted_for_code);
  return detail::decode_payload<T>(payload, trusted_for_code);
}

}  // namespace ferry

#endif  // FERRY_SERIALIZE_DUMPS_H_
