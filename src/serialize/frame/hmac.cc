// Copyright ferry authors.
#include "serialize/frame/hmac.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <string>

#include <serialize/error.h>

namespace ferry::detail {
namespace {

[[noreturn]] void throw_openssl(const char* what) {
  char reason[256] = "unknown reason";
  if (const unsigned long code = ::ERR_get_error(); code != 0)
    ::ERR_error_string_n(code, reason, sizeof reason);
  ::ERR_clear_error();
  throw error(std::string("ferry: HMAC-SHA256: ") + what + ": " + reason);
}

// Fetched once: fetching looks the algorithm up in OpenSSL's provider tables
// under a lock.
EVP_MAC* hmac_algorithm() {
  static EVP_MAC* const mac = ::EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (mac == nullptr) throw_openssl("EVP_MAC_fetch");
  return mac;
}

}  // namespace

hmac_sha256::hmac_sha256(std::string_view key) : ctx_(::EVP_MAC_CTX_new(hmac_algorithm())) {
  if (ctx_ == nullptr) throw_openssl("EVP_MAC_CTX_new");
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {
      ::OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
      ::OSSL_PARAM_construct_end()};
  if (::EVP_MAC_init(ctx_, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params) !=
      1) {
    ::EVP_MAC_CTX_free(ctx_);
    throw_openssl("setting the key");
  }
}

hmac_sha256::~hmac_sha256() { ::EVP_MAC_CTX_free(ctx_); }

void hmac_sha256::begin() {
  // A null key keeps the one given to the constructor.
  if (::EVP_MAC_init(ctx_, nullptr, 0, nullptr) != 1) throw_openssl("EVP_MAC_init");
}

void hmac_sha256::update(std::string_view bytes) {
  if (::EVP_MAC_update(ctx_, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()) !=
      1)
    throw_openssl("EVP_MAC_update");
}

hmac_sha256::tag hmac_sha256::finish() {
  tag out{};
  std::size_t written = 0;
  if (::EVP_MAC_final(ctx_, out.data(), &written, out.size()) != 1 || written != out.size())
    throw_openssl("EVP_MAC_final");
  return out;
}

void initialize_crypto() { hmac_algorithm(); }

bool hmac_sha256::equal(const tag& a, const unsigned char* b) noexcept {
  return ::CRYPTO_memcmp(a.data(), b, a.size()) == 0;
}

}  // namespace ferry::detail
