// Copyright ferry authors.
//
// The frame checksum (src/serialize/frame/crc32c.h) against the published CRC-32C
// check values, and against a bit-at-a-time reference at every length and
// alignment its paths split differently: folded on 512- or 256-bit
// registers, the crc instruction, the table; each tested where the CPU has it.
#include "serialize/frame/crc32c.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
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

// Every path this CPU has (the table always), named for a failure's message.
std::vector<std::pair<ferry::detail::crc_path, const char*>> paths_of_this_cpu() {
  using ferry::detail::crc_path;
  std::vector<std::pair<crc_path, const char*>> out;
  for (const auto& [path, name] : {std::pair{crc_path::folded_512, "folded_512"},
                                   std::pair{crc_path::folded_256, "folded_256"},
                                   std::pair{crc_path::crc_instruction, "crc_instruction"},
                                   std::pair{crc_path::table, "table"}})
    if (ferry::detail::cpu_has(path)) out.emplace_back(path, name);
  return out;
}

TEST(Crc32c, TheTablePathIsThereOnEveryCpu) {
  EXPECT_TRUE(ferry::detail::cpu_has(ferry::detail::crc_path::table));
}

// Folding takes payloads of two strides and more (256 bytes on 256-bit
// registers, 512 on 512-bit ones), 128 or 256 bytes at a time, then 16, and
// the crc instruction takes the rest: every length from below those
// thresholds to past several strides, and lengths around larger multiples.
TEST(Crc32c, FoldedLengthsAgreeWithTheBitByBitReferenceOnEveryPath) {
  std::vector<unsigned char> bytes(3 * 8192 + 64);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 197 + 11);
  for (const auto& [path, name] : paths_of_this_cpu()) {
    for (std::size_t n = 200; n <= 1100; ++n)
      for (std::size_t start : {0, 1, 3})
        ASSERT_EQ(ferry::detail::crc32c_by(path, bytes.data() + start, n), crc_bit_by_bit(bytes.data() + start, n))
            << name << ", start " << start << ", " << n << " bytes";
    for (std::size_t base : {std::size_t{8 * 1024}, std::size_t{3 * 8192}})
      for (std::size_t n = base - 20; n <= base + 20 && n <= bytes.size() - 3; ++n)
        for (std::size_t start : {0, 1, 3})
          ASSERT_EQ(ferry::detail::crc32c_by(path, bytes.data() + start, n), crc_bit_by_bit(bytes.data() + start, n))
              << name << ", start " << start << ", " << n << " bytes";
  }
}

// Words of all ones and all zeros, the carry-less products' extremes.
TEST(Crc32c, UniformPayloadsAgreeWithTheBitByBitReferenceOnEveryPath) {
  for (unsigned char fill : {0x00, 0xff, 0x80, 0x01}) {
    const std::vector<unsigned char> bytes(4096 + 13, fill);
    ASSERT_EQ(crc_of(bytes), crc_bit_by_bit(bytes.data(), bytes.size())) << "fill " << int{fill};
    for (const auto& [path, name] : paths_of_this_cpu())
      ASSERT_EQ(ferry::detail::crc32c_by(path, bytes.data(), bytes.size()), crc_of(bytes))
          << name << ", fill " << int{fill};
  }
}

// By the crc instruction, payloads of three blocks and more go through three
// interleaved chains joined by table lookups (256- and 8192-byte blocks):
// every length around those sizes agrees with the reference.
TEST(Crc32c, LengthsAroundTheInterleavedBlocksAgreeWithTheBitByBitReference) {
  using ferry::detail::crc_path;
  if (!ferry::detail::cpu_has(crc_path::crc_instruction)) GTEST_SKIP() << "no SSE4.2 crc instruction";
  std::vector<unsigned char> bytes(3 * 8192 * 2 + 3 * 256 + 64);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 197 + 11);
  for (std::size_t base : {std::size_t{3 * 256}, std::size_t{2 * 3 * 256}, std::size_t{3 * 8192},
                           std::size_t{3 * 8192 + 3 * 256}, std::size_t{2 * 3 * 8192}})
    for (std::size_t n = base - 9; n <= base + 9 && n <= bytes.size() - 3; ++n)
      for (std::size_t start : {0, 1, 3})
        ASSERT_EQ(ferry::detail::crc32c_by(crc_path::crc_instruction, bytes.data() + start, n),
                  crc_bit_by_bit(bytes.data() + start, n))
            << "start " << start << ", " << n << " bytes";
}
