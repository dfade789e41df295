// Copyright ferry authors.
//
// Signed frames (ferry::dumps / ferry::loads with a ferry::signing_key): one
// named test per way signed bytes can be wrong.
#include <gtest/gtest.h>

#include <string>

#include <serialize/serialize.h>

namespace {

using int_fn = ferry::function<int(int)>;

const ferry::signing_key& key_a() {
  static const ferry::signing_key k = ferry::signing_key::generate();
  return k;
}
const ferry::signing_key& key_b() {
  static const ferry::signing_key k = ferry::signing_key::generate();
  return k;
}

std::string signed_function() {
  const int offset = 40;
  int_fn f = ferry::closure([](int offset, int x) { return x + offset; }, offset);
  return ferry::dumps(f, key_a());
}

void expect_authentication_error(const std::string& bytes, const ferry::signing_key& key,
                                 std::string_view why) {
  try {
    (void)ferry::loads<int_fn>(bytes, key);
    ADD_FAILURE() << "expected authentication_error";
  } catch (const ferry::authentication_error& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Signing, RoundTripOfAClosure) {
  EXPECT_EQ(ferry::loads<int_fn>(signed_function(), key_a())(2), 42);
}

TEST(Signing, FrameLayout) {
  const std::string plain = ferry::dumps(std::string("payload"));
  const std::string signed_frame = ferry::dumps(std::string("payload"), key_a());
  EXPECT_EQ(signed_frame.substr(0, 3), "FRS");
  EXPECT_EQ(signed_frame.size(), plain.size() + ferry::wire::signature_size);
  // Same header fields and payload; only the magic differs.
  EXPECT_EQ(signed_frame.substr(3, plain.size() - 3), plain.substr(3));
}

TEST(Signing, KeyKeptAsBytesStillVerifies) {
  const ferry::signing_key restored(key_a().bytes());
  EXPECT_EQ(ferry::loads<int_fn>(signed_function(), restored)(0), 40);
}

TEST(Signing, OtherKeyIsRejected) {
  expect_authentication_error(signed_function(), key_b(), "signature does not match");
}

TEST(Signing, EveryFlippedByteIsRejected) {
  const std::string good = signed_function();
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] ^= 0x20;
    EXPECT_THROW((void)ferry::loads<int_fn>(bad, key_a()), ferry::authentication_error) << "byte " << i;
  }
}

TEST(Signing, EveryTruncationIsRejected) {
  const std::string good = signed_function();
  for (std::size_t n = 0; n < good.size(); ++n)
    EXPECT_THROW((void)ferry::loads<int_fn>(good.substr(0, n), key_a()), ferry::authentication_error)
        << "cut at " << n;
}

TEST(Signing, AppendedBytesAreRejected) {
  expect_authentication_error(signed_function() + "x", key_a(), "signature does not match");
}

TEST(Signing, UnsignedFrameIsRejectedWhenAKeyIsGiven) {
  int_fn f = [](int x) { return x; };
  expect_authentication_error(ferry::dumps(f), key_a(), "not signed");
}

TEST(Signing, SignedFrameNeedsItsKey) {
  try {
    (void)ferry::loads<int_fn>(signed_function());
    FAIL() << "expected format_error";
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), 0u);
    EXPECT_NE(std::string(e.what()).find("signing_key"), std::string::npos) << e.what();
  }
}
