// Copyright ferry authors.
//
// The frame checksum (src/serialize/frame/crc32c.h) against the published CRC-32C
// check values, and against a bit-at-a-time reference at every length and
// alignment its paths split differently: folded (where the CPU can) and
// unfolded, both tested on every CPU that has them.
#include "serialize/frame/crc32c.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

std::uint32_t crc_bit_by_bit(const unsigned char* p, std::size_t n) {
  std::uint32_t crc = 0xffffffff;
  for (std::size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78 : crc >> 1;
  }
  return ~crc;
}

std::uint32_t crc_of(const std::vector<unsigned char>& bytes) {
  return ferry::detail::crc32c(bytes.data(), bytes.size());
}

}  // namespace

TEST(Crc32c, TheCheckValueOfTheDigitsIsTheCatalogues) {
  const std::string digits = "123456789";
  EXPECT_EQ(ferry::detail::crc32c(digits.data(), digits.size()), 0xe3069283u);
}

TEST(Crc32c, TheRfc3720TestVectorsMatch) {
  EXPECT_EQ(crc_of(std::vector<unsigned char>(32, 0x00)), 0x8a9136aau);
  EXPECT_EQ(crc_of(std::vector<unsigned char>(32, 0xff)), 0x62a8ab43u);
  std::vector<unsigned char> ascending(32), descending(32);
  for (unsigned i = 0; i < 32; ++i) {
    ascending[i] = static_cast<unsigned char>(i);
    descending[i] = static_cast<unsigned char>(31 - i);
  }
  EXPECT_EQ(crc_of(ascending), 0x46dd794eu);
  EXPECT_EQ(crc_of(descending), 0x113fdb5cu);
}

TEST(Crc32c, NothingHasTheChecksumZero) { EXPECT_EQ(ferry::detail::crc32c(nullptr, 0), 0u); }

TEST(Crc32c, EveryLengthAndAlignmentAgreesWithTheBitByBitReference) {
  std::vector<unsigned char> bytes(200);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 131 + 7);
  for (std::size_t start = 0; start < 8; ++start)
    for (std::size_t n = 0; start + n <= bytes.size(); ++n)
      ASSERT_EQ(ferry::detail::crc32c(bytes.data() + start, n), crc_bit_by_bit(bytes.data() + start, n))
          << "start " << start << ", " << n << " bytes";
}

// Payloads of 256 bytes and more are folded 128 bytes at a time, then 16,
// and the crc instruction takes the rest: every length from below that
// threshold to past several strides, and lengths around larger multiples.
TEST(Crc32c, FoldedLengthsAgreeWithTheBitByBitReference) {
  std::vector<unsigned char> bytes(3 * 8192 + 64);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 197 + 11);
  for (std::size_t n = 200; n <= 700; ++n)
    for (std::size_t start : {0, 1, 3})
      ASSERT_EQ(ferry::detail::crc32c(bytes.data() + start, n), crc_bit_by_bit(bytes.data() + start, n))
          << "start " << start << ", " << n << " bytes";
  for (std::size_t base : {std::size_t{8 * 1024}, std::size_t{3 * 8192}})
    for (std::size_t n = base - 20; n <= base + 20 && n <= bytes.size() - 3; ++n)
      for (std::size_t start : {0, 1, 3})
        ASSERT_EQ(ferry::detail::crc32c(bytes.data() + start, n), crc_bit_by_bit(bytes.data() + start, n))
            << "start " << start << ", " << n << " bytes";
}

// Words of all ones and all zeros, the carry-less products' extremes.
TEST(Crc32c, UniformPayloadsAgreeWithTheBitByBitReference) {
  for (unsigned char fill : {0x00, 0xff, 0x80, 0x01}) {
    const std::vector<unsigned char> bytes(4096 + 13, fill);
    ASSERT_EQ(crc_of(bytes), crc_bit_by_bit(bytes.data(), bytes.size())) << "fill " << int{fill};
    ASSERT_EQ(ferry::detail::crc32c_unfolded(bytes.data(), bytes.size()), crc_of(bytes)) << "fill " << int{fill};
  }
}

// Unfolded, payloads of three blocks and more go through three interleaved
// chains joined by table lookups (256- and 8192-byte blocks): every length
// around those sizes agrees with the reference.
TEST(Crc32c, LengthsAroundTheInterleavedBlocksAgreeWithTheBitByBitReference) {
  std::vector<unsigned char> bytes(3 * 8192 * 2 + 3 * 256 + 64);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 197 + 11);
  for (std::size_t base : {std::size_t{3 * 256}, std::size_t{2 * 3 * 256}, std::size_t{3 * 8192},
                           std::size_t{3 * 8192 + 3 * 256}, std::size_t{2 * 3 * 8192}})
    for (std::size_t n = base - 9; n <= base + 9 && n <= bytes.size() - 3; ++n)
      for (std::size_t start : {0, 1, 3})
        ASSERT_EQ(ferry::detail::crc32c_unfolded(bytes.data() + start, n),
                  crc_bit_by_bit(bytes.data() + start, n))
            << "start " << start << ", " << n << " bytes";
}
