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

TEST(DumpsFrame, HeaderLayout) {
  const std::string f = good();
  ASSERT_GE(f.size(), ferry::wire::header_size);
  EXPECT_EQ(f.substr(0, 3), "FRY");
  EXPECT_EQ(static_cast<std::uint8_t>(f[3]), ferry::wire::version);
  std::uint64_t length;
  std::memcpy(&length, f.data() + 8, 8);
  EXPECT_EQ(length, f.size() - ferry::wire::header_size);
}

TEST(DumpsFrame, EmptyInput) { EXPECT_EQ(offset_of_error(""), 0u); }

TEST(DumpsFrame, ShorterThanHeader) { EXPECT_EQ(offset_of_error(good().substr(0, 10)), 10u); }

TEST(DumpsFrame, BadMagic) {
  std::string f = good();
  f[0] = 'X';
  EXPECT_EQ(offset_of_error(f), 0u);
}

TEST(DumpsFrame, OtherVersion) {
  std::string f = good();
  f[3] = 3;
  try {
    (void)ferry::loads<std::string>(f);
    FAIL();
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), 3u);
    EXPECT_NE(std::string(e.what()).find("wire version 3"), std::string::npos) << e.what();
  }
}

TEST(DumpsFrame, TruncatedPayload) {
  const std::string f = good();
  EXPECT_EQ(offset_of_error(f.substr(0, f.size() - 1)), 8u);
}

TEST(DumpsFrame, ExtraBytesAfterFrame) { EXPECT_EQ(offset_of_error(good() + "x"), 8u); }

TEST(DumpsFrame, FlippedPayloadByte) {
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

TEST(DumpsFrame, EveryFlippedByteIsDetected) {
  const std::string f = ferry::dumps(ferry::function<int(int)>([](int x) { return x; }));
  for (std::size_t i = 0; i < f.size(); ++i) {
    std::string g = f;
    g[i] ^= 0x20;
    EXPECT_THROW((void)ferry::loads<ferry::function<int(int)>>(g), ferry::format_error) << i;
  }
}

TEST(DumpsFrame, EveryTruncationIsDetected) {
  const std::string f = ferry::dumps(ferry::function<int(int)>([](int x) { return x; }));
  for (std::size_t n = 0; n < f.size(); ++n)
    EXPECT_THROW((void)ferry::loads<ferry::function<int(int)>>(f.substr(0, n)), ferry::format_error)
        << n;
}

TEST(DumpsFrame, ValueShorterThanPayloadLeavesTrailingBytes) {
  // A payload holding two strings, read as one.
  std::string value;
  {
    ferry::output_archive ar(value);
    ar(std::string("a"), std::string("b"));
  }
  const std::string f = ferry::testing::frame_of_value(value);
  try {
    (void)ferry::loads<std::string>(f);
    FAIL();
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), ferry::wire::header_size + 9);
    EXPECT_NE(std::string(e.what()).find("9 unexpected bytes"), std::string::npos) << e.what();
  }
}

TEST(DumpsFrame, UnknownFunctionTag) {
  std::string f = ferry::dumps(ferry::function<void()>());
  f[ferry::wire::header_size] = 7;  // tags are 0 to 4
  try {
    (void)ferry::loads<ferry::function<void()>>(reseal(f));
    FAIL();
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), ferry::wire::header_size);
    EXPECT_NE(std::string(e.what()).find("unknown function tag 7"), std::string::npos);
  }
}

// --- The module directory at the end of the payload ---

namespace {

using int_fn = ferry::function<int(int)>;

// The format_error that loading `frame` as an int_fn throws.
ferry::format_error load_error(const std::string& frame) {
  try {
    (void)ferry::loads<int_fn>(frame);
  } catch (const ferry::format_error& e) {
    return e;
  }
  ADD_FAILURE() << "no format_error";
  return ferry::format_error(0, "none");
}

std::string u32(std::uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }

// A frame of `value` followed by `directory` and a footer of `count` and
// `size` (the directory's real size unless given).
std::string frame_with_directory(const std::string& value, const std::string& directory,
                                 std::uint32_t count, std::uint32_t size) {
  std::string frame(ferry::wire::header_size, '\0');
  frame += value + directory + u32(count) + u32(size);
  return reseal(frame);
}

std::string entry(const std::string& path, const std::string& build_id) {
  std::string out;
  const std::uint64_t n = path.size(), m = build_id.size();
  out.append(reinterpret_cast<const char*>(&n), 8);
  out += path;
  out.append(reinterpret_cast<const char*>(&m), 8);
  out += build_id;
  return out;
}

}  // namespace

TEST(DumpsDirectory, APayloadTooShortForTheFooter) {
  std::string frame(ferry::wire::header_size, '\0');
  frame += "abc";
  const ferry::format_error e = load_error(reseal(frame));
  EXPECT_EQ(e.offset(), ferry::wire::header_size);
  EXPECT_NE(std::string(e.what()).find("too short for the module directory"), std::string::npos) << e.what();
}

TEST(DumpsDirectory, ASizeLargerThanTheBytesBeforeIt) {
  const ferry::format_error e = load_error(frame_with_directory(std::string(1, '\0'), "", 0, 1000));
  EXPECT_EQ(e.offset(), ferry::wire::header_size + 1 + 4);
  EXPECT_NE(std::string(e.what()).find("size 1000 is larger than the 1 bytes"), std::string::npos) << e.what();
}

TEST(DumpsDirectory, ACountAboveTheLimit) {
  const ferry::format_error e = load_error(frame_with_directory(std::string(1, '\0'), "", 100000, 0));
  EXPECT_EQ(e.offset(), ferry::wire::header_size + 1);
  EXPECT_NE(std::string(e.what()).find("lists 100000 modules"), std::string::npos) << e.what();
}

TEST(DumpsDirectory, MoreModulesClaimedThanItHolds) {
  const std::string one = entry("/lib/x.so", "abcd");
  const ferry::format_error e = load_error(frame_with_directory(std::string(1, '\0'), one, 2, static_cast<std::uint32_t>(one.size())));
  EXPECT_EQ(e.offset(), ferry::wire::header_size + 1 + one.size());
  EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
}

TEST(DumpsDirectory, BytesAfterItsModules) {
  const ferry::format_error e = load_error(frame_with_directory(std::string(1, '\0'), "xyz", 0, 3));
  EXPECT_EQ(e.offset(), ferry::wire::header_size + 1);
  EXPECT_NE(std::string(e.what()).find("3 bytes in the module directory after its 0 modules"),
            std::string::npos) << e.what();
}

TEST(DumpsDirectory, AModuleWithAnEmptyBuildId) {
  const std::string bad = entry("/lib/x.so", "");
  const ferry::format_error e = load_error(frame_with_directory(std::string(1, '\0'), bad, 1, static_cast<std::uint32_t>(bad.size())));
  EXPECT_NE(std::string(e.what()).find("empty build-id for module '/lib/x.so'"), std::string::npos) << e.what();
}

TEST(DumpsDirectory, AReferenceBeyondIt) {
  std::string f = ferry::dumps(int_fn([](int x) { return x; }));
  const std::uint32_t ref = 1;  // the directory lists one module, index 0
  std::memcpy(f.data() + ferry::wire::header_size + 1, &ref, 4);
  const ferry::format_error e = load_error(reseal(f));
  EXPECT_EQ(e.offset(), ferry::wire::header_size + 1);
  EXPECT_NE(std::string(e.what()).find("module reference 1 but the directory lists 1 modules"),
            std::string::npos) << e.what();
}

TEST(DumpsDirectory, AListedModuleNothingRefersTo) {
  const std::string f = ferry::dumps(int_fn([](int x) { return x; }));
  const auto l = ferry::testing::layout_of(f);
  const std::string listed = f.substr(l.directory_at, f.size() - ferry::wire::directory_footer_size - l.directory_at);
  const std::string extra = entry("/lib/never_used.so", "abcd");
  std::string edited(ferry::wire::header_size, '\0');
  edited += f.substr(ferry::wire::header_size, l.directory_at - ferry::wire::header_size);
  const ferry::format_error e = load_error(
      frame_with_directory(edited.substr(ferry::wire::header_size), listed + extra, 2,
                           static_cast<std::uint32_t>(listed.size() + extra.size())));
  EXPECT_NE(std::string(e.what()).find("lists '/lib/never_used.so', which nothing in the payload refers to"),
            std::string::npos) << e.what();
}

TEST(DumpsDirectory, AValueThatNamesNoModuleHasAnEmptyOne) {
  const std::string f = ferry::dumps(std::string("payload"));
  EXPECT_EQ(f.substr(f.size() - ferry::wire::directory_footer_size), std::string(8, '\0'));
}
