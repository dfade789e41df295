// Copyright ferry authors.
//
// HMAC-SHA256 (src/serialize/frame/hmac.h) against RFC 4231's test cases, and the
// reuse of one keyed state for many messages, which is why the class exists.
#include "serialize/frame/hmac.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdio>
#include <cstring>
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

// Keys at and around SHA-256's block of 64 bytes take three paths (padded,
// exact, hashed first), and messages around a block boundary end in the
// padding's two cases; each tag must equal OpenSSL's own one-shot HMAC.
TEST(HmacSha256, KeysAndMessagesAroundTheBlockSizeMatchOpenSslsHmac) {
  for (std::size_t key_size : {0u, 1u, 32u, 63u, 64u, 65u, 200u}) {
    std::string key(key_size, '\0');
    for (std::size_t i = 0; i < key_size; ++i) key[i] = static_cast<char>(i * 7 + 1);
    hmac_sha256 mac(key);
    for (std::size_t message_size : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 1000u}) {
      std::string message(message_size, '\0');
      for (std::size_t i = 0; i < message_size; ++i) message[i] = static_cast<char>(i * 13 + 5);
      unsigned char expected[EVP_MAX_MD_SIZE];
      unsigned int expected_size = 0;
      ASSERT_NE(::HMAC(::EVP_sha256(), key.data(), static_cast<int>(key.size()),
                       reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                       expected, &expected_size),
                nullptr);
      ASSERT_EQ(expected_size, hmac_sha256::tag_size);
      mac.begin();
      mac.update(message);
      const hmac_sha256::tag got = mac.finish();
      EXPECT_EQ(0, std::memcmp(got.data(), expected, expected_size))
          << "key of " << key_size << " bytes, message of " << message_size;
    }
  }
}
