// Copyright ferry authors.
//
// The tag every executor message carries (src/serialize/frame/hmac.h), at
// the sizes of a no-op task's header and body and larger, against the same
// HMAC-SHA256 through OpenSSL's EVP_MAC re-initialized per message, which
// is what ferry did before. Run:
//   build-bench/bench/hmac_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstdint>
#include <string>

#include "serialize/frame/hmac.h"

namespace {

std::string message_of(benchmark::State& state) {
  std::string m(static_cast<std::size_t>(state.range(0)), '\0');
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<char>(i * 131 + 7);
  return m;
}

const std::string key(32, '\x5a');

void ferry_hmac(benchmark::State& state) {
  const std::string message = message_of(state);
  ferry::detail::hmac_sha256 mac(key);
  for (auto _ : state) {
    mac.begin();
    mac.update(message);
    benchmark::DoNotOptimize(mac.finish());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

void evp_mac(benchmark::State& state) {
  const std::string message = message_of(state);
  EVP_MAC* algorithm = ::EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* ctx = ::EVP_MAC_CTX_new(algorithm);
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {::OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               ::OSSL_PARAM_construct_end()};
  if (::EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params) != 1) {
    state.SkipWithError("EVP_MAC_init");
    return;
  }
  unsigned char out[32];
  std::size_t written = 0;
  for (auto _ : state) {
    ::EVP_MAC_init(ctx, nullptr, 0, nullptr);  // the same key, a new message
    ::EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(message.data()), message.size());
    ::EVP_MAC_final(ctx, out, &written, sizeof out);
    benchmark::DoNotOptimize(out);
  }
  ::EVP_MAC_CTX_free(ctx);
  ::EVP_MAC_free(algorithm);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

}  // namespace

BENCHMARK(ferry_hmac)->Arg(80)->Arg(1024)->Arg(64 * 1024);
BENCHMARK(evp_mac)->Arg(80)->Arg(1024)->Arg(64 * 1024);
BENCHMARK_MAIN();
