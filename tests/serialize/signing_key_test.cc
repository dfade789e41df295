// Copyright ferry authors.
//
// src/serialize/frame/signing_key.cc: making a key and refusing one that
// could be guessed. What a key does to a frame is signing_test.cc's.
#include <serialize/signing_key.h>

#include <gtest/gtest.h>

#include <set>
#include <string>

#include <serialize/error.h>

namespace {

TEST(SigningKey, AGeneratedKeyHasTheDefaultSize) {
  EXPECT_EQ(ferry::signing_key::generate().bytes().size(), ferry::signing_key::default_size);
}

TEST(SigningKey, GeneratedKeysAreDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 64; ++i) seen.emplace(ferry::signing_key::generate().bytes());
  EXPECT_EQ(seen.size(), 64u);
}

TEST(SigningKey, AKeyKeptAsBytesIsTheSameKey) {
  const ferry::signing_key original = ferry::signing_key::generate();
  const std::string kept(original.bytes());
  EXPECT_EQ(ferry::signing_key(kept).bytes(), original.bytes());
}

TEST(SigningKey, AKeyOfTheLeastSizeIsAccepted) {
  const std::string bytes(ferry::signing_key::min_size, '\0');
  EXPECT_EQ(ferry::signing_key(bytes).bytes(), bytes);  // any bytes, zeros included
}

TEST(SigningKey, AShorterKeyIsRefusedWithItsSizeAndTheLeast) {
  try {
    ferry::signing_key(std::string(ferry::signing_key::min_size - 1, 'k'));
    ADD_FAILURE() << "a key of 15 bytes was accepted";
  } catch (const ferry::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("15 bytes is too short"), std::string::npos) << what;
    EXPECT_NE(what.find("at least 16"), std::string::npos) << what;
    EXPECT_NE(what.find("signing_key::generate"), std::string::npos) << what;
  }
}

TEST(SigningKey, AnEmptyKeyIsRefused) {
  EXPECT_THROW(ferry::signing_key(std::string_view{}), ferry::error);
}

}  // namespace
