// Copyright ferry authors.
#include "serialize/crc32c.h"

#include <nmmintrin.h>

#include <array>
#include <cstring>
#include <utility>

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

__attribute__((target("sse4.2"))) std::uint64_t crc_words(std::uint64_t c, const unsigned char* p,
                                                           std::size_t words) {
  for (; words != 0; --words, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
  }
  return c;
}

// The crc instruction issues once a cycle but takes three to finish, so one
// chain of them runs at a third of the CPU's pace: three chains over three
// adjacent blocks run at full pace, and their registers are then joined.
// Joining moves a register past `block` zero bytes, a linear map, applied
// as four lookups in tables of its effect on each byte of the register.
class shift_past_zeros {
 public:
  explicit shift_past_zeros(std::size_t block) __attribute__((target("sse4.2"))) {
    static const unsigned char zeros[8] = {};
    std::uint32_t bit_image[32];
    for (int b = 0; b < 32; ++b) {
      std::uint64_t c = std::uint64_t{1} << b;
      for (std::size_t i = 0; i < block / 8; ++i) c = crc_words(c, zeros, 1);
      bit_image[b] = static_cast<std::uint32_t>(c);
    }
    for (int k = 0; k < 4; ++k)
      for (std::uint32_t v = 0; v < 256; ++v) {
        std::uint32_t image = 0;
        for (int bit = 0; bit < 8; ++bit)
          if ((v >> bit) & 1) image ^= bit_image[8 * k + bit];
        table_[k][v] = image;
      }
  }
  std::uint32_t operator()(std::uint32_t crc) const {
    return table_[0][crc & 0xff] ^ table_[1][(crc >> 8) & 0xff] ^ table_[2][(crc >> 16) & 0xff] ^
           table_[3][crc >> 24];
  }

 private:
  std::uint32_t table_[4][256];
};

// Both a multiple of 8; the long one for large payloads, the short one for
// those of a few kilobytes (a frame of 1000 doubles).
constexpr std::size_t long_block = 8192, short_block = 256;

// Takes the whole groups of three blocks from the front of [p, p + n),
// advancing p and n past them.
__attribute__((target("sse4.2"))) std::uint64_t crc_interleaved(std::uint64_t c, const unsigned char*& p,
                                                                std::size_t& n) {
  static const shift_past_zeros past_long(long_block), past_short(short_block);
  for (const auto& [block, past] : {std::pair{long_block, &past_long}, std::pair{short_block, &past_short}}) {
    for (; n >= 3 * block; n -= 3 * block, p += 3 * block) {
      std::uint64_t c1 = 0, c2 = 0;
      for (std::size_t i = 0; i < block; i += 8) {
        std::uint64_t w0, w1, w2;
        std::memcpy(&w0, p + i, 8);
        std::memcpy(&w1, p + block + i, 8);
        std::memcpy(&w2, p + 2 * block + i, 8);
        c = _mm_crc32_u64(c, w0);
        c1 = _mm_crc32_u64(c1, w1);
        c2 = _mm_crc32_u64(c2, w2);
      }
      c = (*past)(static_cast<std::uint32_t>(c)) ^ c1;
      c = (*past)(static_cast<std::uint32_t>(c)) ^ c2;
    }
  }
  return c;
}

__attribute__((target("sse4.2"))) std::uint32_t crc_sse42(std::uint32_t crc, const unsigned char* p,
                                                          std::size_t n) {
  std::uint64_t c = crc;
  if (n >= 3 * short_block) c = crc_interleaved(c, p, n);
  c = crc_words(c, p, n / 8);
  p += n / 8 * 8;
  n %= 8;
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
