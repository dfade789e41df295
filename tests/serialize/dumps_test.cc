// Copyright ferry authors.
//
// The frame around a payload: one named test per edge case, each checking
// the error type and the offset it reports.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <serialize/serialize.h>

#include "test_util.h"

using ferry::testing::reseal;

namespace {

std::size_t offset_of_error(const std::string& bytes) {
  try {
    (void)ferry::loads<std::string>(bytes);
  } catch (const ferry::format_error& e) {
    return e.offset();
  }
  ADD_FAILURE() << "no format_error";
  return ~std::size_t{0};
}

std::string good() { return ferry::dumps(std::string("payload")); }

}  // namespace

TEST(Frame, HeaderLayout) {
  const std::string f = good();
  ASSERT_GE(f.size(), ferry::wire::header_size);
  EXPECT_EQ(f.substr(0, 3), "FRY");
  EXPECT_EQ(static_cast<std::uint8_t>(f[3]), ferry::wire::version);
  std::uint64_t length;
  std::memcpy(&length, f.data() + 8, 8);
  EXPECT_EQ(length, f.size() - ferry::wire::header_size);
}

TEST(Frame, EmptyInput) { EXPECT_EQ(offset_of_error(""), 0u); }

TEST(Frame, ShorterThanHeader) { EXPECT_EQ(offset_of_error(good().substr(0, 10)), 10u); }

TEST(Frame, BadMagic) {
  std::string f = good();
  f[0] = 'X';
  EXPECT_EQ(offset_of_error(f), 0u);
}

TEST(Frame, OtherVersion) {
  std::string f = good();
  f[3] = 2;
  try {
    (void)ferry::loads<std::string>(f);
    FAIL();
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), 3u);
    EXPECT_NE(std::string(e.what()).find("wire version 2"), std::string::npos) << e.what();
  }
}

TEST(Frame, TruncatedPayload) {
  const std::string f = good();
  EXPECT_EQ(offset_of_error(f.substr(0, f.size() - 1)), 8u);
}

TEST(Frame, ExtraBytesAfterFrame) { EXPECT_EQ(offset_of_error(good() + "x"), 8u); }

TEST(Frame, FlippedPayloadByte) {
  std::string f = good();
  f[f.size() - 1] ^= 0x01;
  try {
    (void)ferry::loads<std::string>(f);
    FAIL();
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), 4u);
    EXPECT_NE(std::string(e.what()).find("checksum mismatch"), std::string::npos);
  }
}

TEST(Frame, EveryFlippedByteIsDetected) {
  const std::string f = ferry::dumps(ferry::function<int(int)>([](int x) { return x; }));
  for (std::size_t i = 0; i < f.size(); ++i) {
    std::string g = f;
    g[i] ^= 0x20;
    EXPECT_THROW((void)ferry::loads<ferry::function<int(int)>>(g), ferry::format_error) << i;
  }
}

TEST(Frame, EveryTruncationIsDetected) {
  const std::string f = ferry::dumps(ferry::function<int(int)>([](int x) { return x; }));
  for (std::size_t n = 0; n < f.size(); ++n)
    EXPECT_THROW((void)ferry::loads<ferry::function<int(int)>>(f.substr(0, n)), ferry::format_error)
        << n;
}

TEST(Frame, ValueShorterThanPayloadLeavesTrailingBytes) {
  // A payload holding two strings, read as one.
  std::string frame(ferry::wire::header_size, '\0');
  {
    ferry::output_archive ar(frame);
    ar(std::string("a"), std::string("b"));
  }
  const std::string f = reseal(frame);
  try {
    (void)ferry::loads<std::string>(f);
    FAIL();
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), ferry::wire::header_size + 9);
    EXPECT_NE(std::string(e.what()).find("9 unexpected bytes"), std::string::npos) << e.what();
  }
}

TEST(Frame, UnknownFunctionTag) {
  std::string f = ferry::dumps(ferry::function<void()>());
  f[ferry::wire::header_size] = 7;  // tags are 0, 1, 2
  try {
    (void)ferry::loads<ferry::function<void()>>(reseal(f));
    FAIL();
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), ferry::wire::header_size);
    EXPECT_NE(std::string(e.what()).find("unknown function tag 7"), std::string::npos);
  }
}
