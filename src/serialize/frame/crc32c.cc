// Copyright ferry authors.
#include "serialize/frame/crc32c.h"

#include <immintrin.h>

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

// Folding with carry-less multiplication, where the CPU multiplies two
// 128-bit blocks in one instruction (VPCLMULQDQ on 256-bit registers): four
// independent 32-byte accumulators advance over 128 bytes at a time, are
// reduced to one 16-byte block at the end, and the crc instruction finishes
// that block and the tail. On this project's machine (AMD EPYC) it ran 1.3x
// the interleaved chains' pace, while the 128-bit form (PCLMULQDQ alone) ran
// slower than them, which is why it is not used without the 256-bit one.
// Everything rests on one identity: the CRC of a message depends only on its
// polynomial modulo P, so a block may be replaced by any block congruent to
// it times x^distance, placed `distance` bits further on.
//
// Bit order: in a little-endian 64-bit lane, bit j is the coefficient of
// x^(63-j) (the first bit of the message is the highest power), so a 128-bit
// block with lanes lo, hi is x^64*LO + HI.

// x^k mod P in the usual order (bit d is x^d), P = x^32 + 0x1edc6f41.
constexpr std::uint64_t x_power_mod_p(unsigned k) {
  std::uint64_t r = 1;
  for (unsigned i = 0; i < k; ++i) {
    r <<= 1;
    if (r & (std::uint64_t{1} << 32)) r ^= (std::uint64_t{1} << 32) | 0x1edc6f41;
  }
  return r;
}

constexpr std::uint64_t in_lane_order(std::uint64_t poly) {
  std::uint64_t lane = 0;
  for (unsigned d = 0; d < 64; ++d)
    if ((poly >> d) & 1) lane |= std::uint64_t{1} << (63 - d);
  return lane;
}

// The multipliers moving a block `bits` further on. A carry-less product of
// two lanes is one power of x short (degrees 0..126 land in bits 1..127 of
// the 128-bit order), hence one power less in each constant.
constexpr std::array<std::uint64_t, 2> fold_constants(unsigned bits) {
  return {in_lane_order(x_power_mod_p(bits + 64 - 1)), in_lane_order(x_power_mod_p(bits - 1))};
}

__attribute__((target("pclmul,sse4.2"))) inline __m128i fold(__m128i block, __m128i constants) {
  return _mm_xor_si128(_mm_clmulepi64_si128(block, constants, 0x00),
                       _mm_clmulepi64_si128(block, constants, 0x11));
}

__attribute__((target("sse2"))) inline __m128i load(const unsigned char* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

__attribute__((target("avx2"))) inline __m256i load32(const unsigned char* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

constexpr std::size_t accumulators = 4, stride = 32 * accumulators;

__attribute__((target("vpclmulqdq,avx2,pclmul,sse4.2"))) std::uint32_t crc_folded(std::uint32_t crc,
                                                                                   const unsigned char* p,
                                                                                   std::size_t n) {
  static constexpr auto far = fold_constants(8 * stride), near = fold_constants(128);
  const auto lane = [](std::uint64_t v) { return static_cast<long long>(v); };
  const __m256i k_far = _mm256_set_epi64x(lane(far[1]), lane(far[0]), lane(far[1]), lane(far[0]));
  const __m128i k_near = _mm_set_epi64x(lane(near[1]), lane(near[0]));
  __m256i acc[accumulators];
  for (std::size_t i = 0; i < accumulators; ++i) acc[i] = load32(p + 32 * i);
  // A running crc is the same as its value added to the message's first four bytes.
  acc[0] = _mm256_xor_si256(acc[0], _mm256_zextsi128_si256(_mm_cvtsi32_si128(static_cast<int>(crc))));
  p += stride;
  n -= stride;
  for (; n >= stride; n -= stride, p += stride)
#pragma GCC unroll 4
    for (std::size_t i = 0; i < accumulators; ++i)
      acc[i] = _mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(acc[i], k_far, 0x00),
                                                 _mm256_clmulepi64_epi128(acc[i], k_far, 0x11)),
                                load32(p + 32 * i));
  __m128i x = _mm256_castsi256_si128(acc[0]);
  for (std::size_t i = 0; i < accumulators; ++i) {
    if (i != 0) x = _mm_xor_si128(fold(x, k_near), _mm256_castsi256_si128(acc[i]));
    x = _mm_xor_si128(fold(x, k_near), _mm256_extracti128_si256(acc[i], 1));
  }
  for (; n >= 16; n -= 16, p += 16) x = _mm_xor_si128(fold(x, k_near), load(p));
  unsigned char last[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(last), x);
  return crc_sse42(crc_sse42(0, last, 16), p, n);
}

// The same folding on 512-bit registers, where the CPU has AVX-512: four
// accumulators of 64 bytes advance over 256 bytes at a time, each step one
// three-way xor (vpternlogq) of the two products and the next block, which
// also shortens each accumulator's chain by an instruction. On the
// project's AMD EPYC (Zen 5) it ran twice the 256-bit form's pace: 8 KiB in
// 176 ns against 348 (docs/performance.md). The accumulators are joined by
// folding 64 bytes at a time, then the four 16-byte lanes of the last one.
constexpr std::size_t wide_stride = 64 * accumulators;

// A pair of fold constants in each of the four lanes of a 512-bit register.
__attribute__((target("avx512f"))) inline __m512i in_four_lanes(const std::array<std::uint64_t, 2>& k) {
  const auto lo = static_cast<long long>(k[0]), hi = static_cast<long long>(k[1]);
  return _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo);
}

// acc moved on by the constants' distance, plus block.
__attribute__((target("avx512f,vpclmulqdq"))) inline __m512i fold_in(__m512i acc, __m512i constants,
                                                                     __m512i block) {
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc, constants, 0x00),
                                   _mm512_clmulepi64_epi128(acc, constants, 0x11), block, 0x96);
}

__attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.2"))) std::uint32_t crc_folded_512(
    std::uint32_t crc, const unsigned char* p, std::size_t n) {
  static constexpr auto far = fold_constants(8 * wide_stride), next = fold_constants(8 * 64),
                        near = fold_constants(128);
  const __m512i k_far = in_four_lanes(far), k_next = in_four_lanes(next);
  const __m128i k_near = _mm_set_epi64x(static_cast<long long>(near[1]), static_cast<long long>(near[0]));
  __m512i acc[accumulators];
  for (std::size_t i = 0; i < accumulators; ++i) acc[i] = _mm512_loadu_si512(p + 64 * i);
  acc[0] = _mm512_xor_si512(acc[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(crc))));
  p += wide_stride;
  n -= wide_stride;
  for (; n >= wide_stride; n -= wide_stride, p += wide_stride)
#pragma GCC unroll 4
    for (std::size_t i = 0; i < accumulators; ++i) acc[i] = fold_in(acc[i], k_far, _mm512_loadu_si512(p + 64 * i));
  __m512i joined = acc[0];
  for (std::size_t i = 1; i < accumulators; ++i) joined = fold_in(joined, k_next, acc[i]);
  // Through memory: GCC 12 warns of its own placeholder in the lane extract.
  unsigned char lanes[64];
  _mm512_storeu_si512(lanes, joined);
  __m128i x = load(lanes);
  for (std::size_t i = 1; i < 4; ++i) x = _mm_xor_si128(fold(x, k_near), load(lanes + 16 * i));
  for (; n >= 16; n -= 16, p += 16) x = _mm_xor_si128(fold(x, k_near), load(p));
  unsigned char last[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(last), x);
  return crc_sse42(crc_sse42(0, last, 16), p, n);
}

// What the CPU has, read once.
struct cpu_features {
  bool sse42 = __builtin_cpu_supports("sse4.2");
  bool folding = sse42 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
                 __builtin_cpu_supports("vpclmulqdq");
  bool wide_folding = folding && __builtin_cpu_supports("avx512f");
};

const cpu_features& cpu() {
  static const cpu_features features;
  return features;
}

// The running crc (inverted) of [p, p + n) by `path`, or by the next path
// where the payload is too short for it.
std::uint32_t crc_by(crc_path path, const unsigned char* p, std::size_t n) {
  switch (path) {
    case crc_path::folded_512:
      if (n >= 2 * wide_stride) return crc_folded_512(~0u, p, n);
      [[fallthrough]];
    case crc_path::folded_256:
      if (n >= 2 * stride) return crc_folded(~0u, p, n);
      [[fallthrough]];
    case crc_path::crc_instruction:
      return crc_sse42(~0u, p, n);
    case crc_path::table:
      break;
  }
  return crc_portable(~0u, p, n);
}

}  // namespace

bool cpu_has(crc_path path) {
  switch (path) {
    case crc_path::folded_512:
      return cpu().wide_folding;
    case crc_path::folded_256:
      return cpu().folding;
    case crc_path::crc_instruction:
      return cpu().sse42;
    case crc_path::table:
      break;
  }
  return true;
}

std::uint32_t crc32c(const void* data, std::size_t size) {
  // The first of the paths, fastest first, that this CPU has.
  static const crc_path path = [] {
    for (crc_path p : {crc_path::folded_512, crc_path::folded_256, crc_path::crc_instruction})
      if (cpu_has(p)) return p;
    return crc_path::table;
  }();
  return ~crc_by(path, static_cast<const unsigned char*>(data), size);
}

std::uint32_t crc32c_by(crc_path path, const void* data, std::size_t size) {
  return ~crc_by(path, static_cast<const unsigned char*>(data), size);
}

}  // namespace ferry::detail
