// Copyright ferry authors.
#include "serialize/crc32c.h"

#include <nmmintrin.h>

#include <array>
#include <cstring>

namespace ferry::detail {
namespace {

constexpr std::uint32_t kPolynomial = 0x82f63b78;  // reflected Castagnoli

constexpr std::array<std::uint32_t, 256> make_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[i] = c;
  }
  return t;
}

std::uint32_t crc_portable(std::uint32_t crc, const unsigned char* p, std::size_t n) {
  static constexpr auto table = make_table();
  while (n-- != 0) crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

__attribute__((target("sse4.2"))) std::uint32_t crc_sse42(std::uint32_t crc,
                                                          const unsigned char* p,
                                                          std::size_t n) {
  std::uint64_t c = crc;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
  }
  crc = static_cast<std::uint32_t>(c);
  for (; n != 0; --n) crc = _mm_crc32_u8(crc, *p++);
  return crc;
}

}  // namespace

std::uint32_t crc32c(const void* data, std::size_t size) {
  static const bool has_sse42 = __builtin_cpu_supports("sse4.2");
  const auto* p = static_cast<const unsigned char*>(data);
  const std::uint32_t crc = has_sse42 ? crc_sse42(~0u, p, size) : crc_portable(~0u, p, size);
  return ~crc;
}

}  // namespace ferry::detail
