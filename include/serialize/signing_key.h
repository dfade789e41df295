// Copyright ferry authors.
//
// A secret key for signing the bytes that ferry::dumps writes, so that
// ferry::loads accepts them only if they were made by a holder of the same
// key and not changed since. Use it for closures that are persisted or pass
// through hands you do not trust: unsigned bytes can name any module the
// policy allows and any key those modules register; signed bytes can only
// name what a key holder chose to send.
//
//   const ferry::signing_key key = ferry::signing_key::generate();
//   std::string bytes = ferry::dumps(f, key);
//   auto g = ferry::loads<ferry::function<int(int)>>(bytes, key);
//
// The signature is HMAC-SHA256 over the whole frame (docs/api/wire_format.md).
// Keep the key out of argv, the environment and logs; store it as you would
// a password.
//
// Thread-safety: a signing_key is immutable; share it freely.
#ifndef FERRY_SERIALIZE_SIGNING_KEY_H_
#define FERRY_SERIALIZE_SIGNING_KEY_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "serialize/internal/config.h"

namespace ferry {

class FERRY_SERIALIZE_EXPORT signing_key {
 public:
  // Shorter keys are refused: they could be guessed.
  static constexpr std::size_t min_size = 16;
  // The size of generate()'s keys.
  static constexpr std::size_t default_size = 32;

  // A new random key from the kernel's random source (getrandom). Throws
  // ferry::error if the kernel cannot give one.
  static signing_key generate();

  // A key made of these bytes (kept, for instance, from an earlier
  // generate()). Throws ferry::error if there are fewer than min_size.
  explicit signing_key(std::string_view bytes);

  // The key's bytes, to store it. The view lives as long as the key.
  std::string_view bytes() const noexcept { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace ferry

#endif  // FERRY_SERIALIZE_SIGNING_KEY_H_
