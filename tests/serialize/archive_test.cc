// Copyright ferry authors.
//
// ferry's cereal archives: round trips of common std types, and length
// fields that lie.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

#include <serialize/serialize.h>

#include "test_util.h"

using ferry::testing::reseal;
using ferry::testing::round_trip;

TEST(Archive, StdTypesRoundTrip) {
  EXPECT_EQ(round_trip(42), 42);
  EXPECT_EQ(round_trip(-1.25), -1.25);
  EXPECT_EQ(round_trip(std::string("text\0with nul", 13)), std::string("text\0with nul", 13));
  EXPECT_EQ(round_trip(std::string()), "");
  EXPECT_EQ(round_trip(std::vector<double>{1, 2, 3}), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(round_trip(std::vector<std::string>{"a", "", "c"}),
            (std::vector<std::string>{"a", "", "c"}));
  const std::map<std::string, std::vector<int>> m{{"x", {1}}, {"y", {}}};
  EXPECT_EQ(round_trip(m), m);
  const std::unordered_map<int, std::string> u{{1, "one"}, {2, "two"}};
  EXPECT_EQ(round_trip(u), u);
  EXPECT_EQ(round_trip(std::optional<int>()), std::nullopt);
  EXPECT_EQ(round_trip(std::optional<int>(5)), 5);
  const std::variant<int, std::string> v = std::string("alt");
  EXPECT_EQ(round_trip(v), v);
  const std::tuple<int, std::string, bool> t{1, "t", true};
  EXPECT_EQ(round_trip(t), t);
  const std::pair<int, double> p{3, 0.5};
  EXPECT_EQ(round_trip(p), p);
}

TEST(Archive, PlainAggregateIsReflected) {
  struct inner {
    int a;
    std::string b;
  };
  struct outer {
    std::vector<inner> items;
    std::optional<inner> maybe;
  };
  const outer o{{{1, "x"}, {2, "y"}}, inner{3, "z"}};
  const outer back = round_trip(o);
  ASSERT_EQ(back.items.size(), 2u);
  EXPECT_EQ(back.items[1].b, "y");
  ASSERT_TRUE(back.maybe);
  EXPECT_EQ(back.maybe->a, 3);
}

namespace {
// A frame whose payload is a u64 length followed by `present` bytes.
std::string frame_with_length(std::uint64_t claimed, std::size_t present) {
  std::string value(reinterpret_cast<const char*>(&claimed), 8);
  value.append(present, 'x');
  return ferry::testing::frame_of_value(value);
}
}  // namespace

TEST(Archive, HugeStringLengthDoesNotAllocate) {
  try {
    (void)ferry::loads<std::string>(frame_with_length(std::uint64_t{1} << 60, 4));
    FAIL();
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), ferry::wire::header_size);
    EXPECT_NE(std::string(e.what()).find("is more than the 4 bytes left"), std::string::npos)
        << e.what();
  }
}

TEST(Archive, HugeVectorLengthDoesNotAllocate) {
  using strings = std::vector<std::string>;
  using int_map = std::map<int, int>;
  EXPECT_THROW((void)ferry::loads<strings>(frame_with_length(~std::uint64_t{0}, 3)),
               ferry::format_error);
  EXPECT_THROW((void)ferry::loads<int_map>(frame_with_length(1'000'000'000, 16)),
               ferry::format_error);
}

// Large strings and vectors of numbers are read in one copy into memory
// offered huge pages (serialize/internal/large_buffers.h): their values are
// what was written, at every size around the point where that starts.
TEST(Archive, LargeStringsAndVectorsOfNumbersRoundTrip) {
#ifdef FERRY_UNDER_TSAN
  // One thread encoding: nothing for ThreadSanitizer to find (11 s of its
  // run); the plain and AddressSanitizer builds run it.
  GTEST_SKIP() << "single-threaded encoding: run by the plain and AddressSanitizer builds";
#endif
  for (std::size_t n : {std::size_t{4} << 20, (std::size_t{4} << 20) + 1, std::size_t{9} << 20}) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 13 % 251);
    EXPECT_EQ(round_trip(s), s) << n;
    std::vector<double> d(n / sizeof(double) + 1);
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<double>(i) * 0.5 - 3;
    EXPECT_EQ(round_trip(d), d) << n;
    std::vector<std::uint8_t> b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 7);
    EXPECT_EQ(round_trip(b), b) << n;
  }
  EXPECT_EQ(round_trip(std::vector<float>{}), std::vector<float>{});
  EXPECT_EQ(round_trip(std::vector<bool>{true, false, true}), (std::vector<bool>{true, false, true}));
}

// A large value leaves room for what follows it (a frame's module
// directory, the next small argument): one byte more once doubled the
// string into fresh memory and copied the value again, ten times the cost
// of ferry::dumps of a 64 MiB string (docs/performance.md, row (d)).
TEST(Archive, WhatFollowsALargeValueFitsWithoutMovingIt) {
  const std::string large(std::size_t{5} << 20, 'v');
  std::string out;
  ferry::output_archive ar(out);
  ar(std::uint32_t{1}, large);
  const char* const at = out.data();
  const std::string tail(1000, 't');
  for (int i = 0; i < 16; ++i) ar(tail, i);
  EXPECT_EQ(out.data(), at) << "the large value was copied again";
  EXPECT_LT(out.capacity(), out.size() + (std::size_t{1} << 20));
  EXPECT_EQ(ferry::loads<std::string>(ferry::dumps(large)), large);
}

// A count small enough for the bytes left as bytes, but not as doubles.
TEST(Archive, NumberVectorCountPastTheBytesLeftIsAFormatError) {
  try {
    (void)ferry::loads<std::vector<double>>(frame_with_length(3, 16));
    FAIL();
  } catch (const ferry::format_error& e) {
    EXPECT_NE(std::string(e.what()).find("24 bytes expected, 16 left"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ferry::loads<std::vector<std::uint16_t>>(frame_with_length(2, 4)).size(), 2u);
}

TEST(Archive, LengthJustTooLong) {
  EXPECT_THROW((void)ferry::loads<std::string>(frame_with_length(5, 4)), ferry::format_error);
  EXPECT_EQ(ferry::loads<std::string>(frame_with_length(4, 4)), "xxxx");
}

TEST(Archive, BadVariantIndexIsAFormatError) {
  using alt = std::variant<int, std::string>;
  std::string frame = ferry::dumps(alt(5));
  frame[ferry::wire::header_size] = 9;  // cereal writes the index first, as a u32
  EXPECT_THROW((void)ferry::loads<alt>(reseal(frame)), ferry::format_error);
}

// Found by fuzz_mpi_messages: a byte other than 0 or 1 was copied into a
// bool, and reading that bool is undefined behaviour.
TEST(Archive, ABoolThatIsNeitherZeroNorOneIsAFormatError) {
  std::string frame = ferry::dumps(std::vector<bool>{true, false});
  EXPECT_EQ(ferry::loads<std::vector<bool>>(frame), (std::vector<bool>{true, false}));
  const std::size_t at = ferry::wire::header_size + 8;  // after the count
  frame[at] = 2;
  try {
    (void)ferry::loads<std::vector<bool>>(reseal(frame));
    FAIL() << "loaded a bool of value 2";
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), at);
    EXPECT_NE(std::string(e.what()).find("a bool of value 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)ferry::loads<bool>(ferry::testing::frame_of_value(std::string(1, '\x65'))), ferry::format_error);
}

TEST(Archive, TruncatedScalarNamesOffset) {
  try {
    (void)ferry::loads<std::uint64_t>(ferry::testing::frame_of_value("ab"));
    FAIL();
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), ferry::wire::header_size);
    EXPECT_NE(std::string(e.what()).find("8 bytes expected, 2 left"), std::string::npos) << e.what();
  }
}
