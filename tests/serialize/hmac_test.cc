// Copyright ferry authors.
//
// HMAC-SHA256 (src/serialize/frame/hmac.h) against RFC 4231's test cases, and the
// reuse of one keyed state for many messages, which is why the class exists.
#include "serialize/frame/hmac.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

using ferry::detail::hmac_sha256;

std::string hex(const hmac_sha256::tag& t) {
  std::string out;
  char two[3];
  for (unsigned char c : t) {
    std::snprintf(two, sizeof two, "%02x", c);
    out += two;
  }
  return out;
}

std::string tag_of(hmac_sha256& mac, const std::string& message) {
  mac.begin();
  mac.update(message);
  return hex(mac.finish());
}

}  // namespace

TEST(HmacSha256, Rfc4231TestCasesOneAndTwoMatch) {
  hmac_sha256 first(std::string(20, '\x0b'));
  EXPECT_EQ(tag_of(first, "Hi There"), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  hmac_sha256 second("Jefe");
  EXPECT_EQ(tag_of(second, "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HmacSha256, AKeyLongerThanTheBlockIsHashedFirstAsRfc4231CaseSixSays) {
  hmac_sha256 mac(std::string(131, '\xaa'));
  EXPECT_EQ(tag_of(mac, "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(HmacSha256, EachMessageUnderOneKeyStartsAfresh) {
  hmac_sha256 mac("Jefe");
  const std::string once = tag_of(mac, "what do ya want for nothing?");
  EXPECT_NE(tag_of(mac, "another message"), once);
  EXPECT_EQ(tag_of(mac, "what do ya want for nothing?"), once);
}

TEST(HmacSha256, AMessageFedInPiecesHasTheTagOfTheWhole) {
  hmac_sha256 mac("Jefe");
  mac.begin();
  mac.update("what do ya ");
  mac.update("");
  mac.update("want for nothing?");
  EXPECT_EQ(hex(mac.finish()), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HmacSha256, EqualComparesEveryByte) {
  hmac_sha256 mac("k");
  mac.begin();
  mac.update("m");
  const hmac_sha256::tag t = mac.finish();
  EXPECT_TRUE(hmac_sha256::equal(t, t.data()));
  for (std::size_t i = 0; i < t.size(); ++i) {
    hmac_sha256::tag other = t;
    other[i] ^= 0x01;
    EXPECT_FALSE(hmac_sha256::equal(t, other.data())) << "byte " << i;
  }
}
