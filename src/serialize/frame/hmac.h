// Copyright ferry authors. Internal: HMAC-SHA256, for signed dumps frames and
// for the executor's authenticated messages. Exported from libferry_serialize
// for libferry_executor; not installed, not for users.
//
// OpenSSL's SHA-256 block function does the work (with the CPU's SHA
// extensions where present); this class keeps the two keyed states so that
// each message costs one copy of the precomputed inner state and one block
// of the outer hash, instead of a new key setup.
//
// Thread-safety: an hmac_sha256 is used by one thread at a time.
#ifndef FERRY_SRC_SERIALIZE_FRAME_HMAC_H_
#define FERRY_SRC_SERIALIZE_FRAME_HMAC_H_

#include <array>
#include <cstddef>
#include <memory>
#include <string_view>

#include "internal/export.h"

namespace ferry::detail {

class FERRY_INTERNAL_EXPORT hmac_sha256 {
 public:
  static constexpr std::size_t tag_size = 32;
  using tag = std::array<unsigned char, tag_size>;

  // Any key length; a key longer than SHA-256's block is hashed first.
  explicit hmac_sha256(std::string_view key);
  ~hmac_sha256();
  hmac_sha256(const hmac_sha256&) = delete;
  hmac_sha256& operator=(const hmac_sha256&) = delete;

  // Starts a new message under the same key.
  void begin();
  void update(std::string_view bytes);
  tag finish();

  // Compares in time independent of where the tags differ.
  static bool equal(const tag& a, const unsigned char* b) noexcept;

 private:
  struct states;
  std::unique_ptr<states> s_;  // OpenSSL's types stay out of this header
};

// Initializes OpenSSL now. OpenSSL registers its clean-up with atexit when it
// initializes, and clean-ups run in reverse order: an object that signs
// messages until it is destroyed at exit (a pool) calls this before it
// registers its own, so that OpenSSL is torn down after it. Throws
// ferry::error if OpenSSL provides no SHA-256.
FERRY_INTERNAL_EXPORT void initialize_crypto();

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_FRAME_HMAC_H_
