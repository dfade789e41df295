// Copyright ferry authors.
//
// HMAC (RFC 2104) over OpenSSL's SHA-256 block function. The two keyed
// states, SHA-256 after the key XOR ipad and after the key XOR opad, are
// computed once per key; a message then costs a copy of the inner state,
// its own blocks, and one block more for the outer hash. OpenSSL's EVP_MAC
// does the same arithmetic but, per message, re-initializes through its
// provider layer (parameter parsing, a context duplicated on the heap):
// 19.6% of the CPU of `executor_bench throughput` went to libcrypto,
// where every message in both directions carries a tag. bench/hmac_bench.cc
// compares the two.
//
// SHA256_Init/Update/Final are marked deprecated in OpenSSL 3 in favour of
// EVP_Digest*, whose contexts cannot be copied without a heap allocation;
// they remain the same assembly (SHA extensions where the CPU has them) and
// are part of libcrypto 3's ABI.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "serialize/frame/hmac.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <cstring>
#include <string>

#include <serialize/error.h>

namespace ferry::detail {

struct hmac_sha256::states {
  SHA256_CTX inner_keyed;  // after (key XOR ipad): where each message starts
  SHA256_CTX outer_keyed;  // after (key XOR opad)
  SHA256_CTX running;      // the message now being tagged
};

namespace {

constexpr std::size_t block_size = 64;  // SHA-256's

void keyed(SHA256_CTX& state, const unsigned char (&key)[block_size], unsigned char pad) {
  unsigned char block[block_size];
  for (std::size_t i = 0; i < block_size; ++i) block[i] = key[i] ^ pad;
  ::SHA256_Init(&state);
  ::SHA256_Update(&state, block, block_size);
  ::OPENSSL_cleanse(block, sizeof block);
}

}  // namespace

hmac_sha256::hmac_sha256(std::string_view key) : s_(std::make_unique<states>()) {
  // A key longer than a block is replaced by its hash; a shorter one is
  // padded with zeros (RFC 2104, section 2).
  unsigned char padded[block_size] = {};
  if (key.size() > block_size) {
    ::SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), padded);
  } else if (!key.empty()) {
    std::memcpy(padded, key.data(), key.size());
  }
  keyed(s_->inner_keyed, padded, 0x36);
  keyed(s_->outer_keyed, padded, 0x5c);
  ::OPENSSL_cleanse(padded, sizeof padded);
  s_->running = s_->inner_keyed;
}

hmac_sha256::~hmac_sha256() { ::OPENSSL_cleanse(s_.get(), sizeof(states)); }

void hmac_sha256::begin() { s_->running = s_->inner_keyed; }

void hmac_sha256::update(std::string_view bytes) {
  ::SHA256_Update(&s_->running, bytes.data(), bytes.size());
}

hmac_sha256::tag hmac_sha256::finish() {
  unsigned char inner[SHA256_DIGEST_LENGTH];
  ::SHA256_Final(inner, &s_->running);
  s_->running = s_->outer_keyed;
  ::SHA256_Update(&s_->running, inner, sizeof inner);
  tag out{};
  ::SHA256_Final(out.data(), &s_->running);
  return out;
}

void initialize_crypto() {
  // Any call that makes OpenSSL initialize itself, which registers its
  // clean-up with atexit: a digest lookup does.
  if (::EVP_get_digestbyname("SHA256") == nullptr)
    throw error("ferry: OpenSSL provides no SHA-256; HMAC-SHA256 cannot be computed");
}

bool hmac_sha256::equal(const tag& a, const unsigned char* b) noexcept {
  return ::CRYPTO_memcmp(a.data(), b, a.size()) == 0;
}

}  // namespace ferry::detail
