// Copyright ferry authors.
//
// The memory of a large task body kept for the next one
// (src/executor/core/spare_body.h): what is kept, what is not, for how long,
// and a small task that took it giving it back.
#include "executor/core/spare_body.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using ferry::detail::spare_body;

std::string body_of(std::size_t bytes) {
  std::string s;
  s.reserve(bytes);
  s.assign(bytes, 'b');
  return s;
}

TEST(SpareBody, ALargeBodysMemoryIsTakenBackEmptyWithItsCapacity) {
  spare_body spare;
  std::string body = body_of(spare_body::least);
  const char* memory = body.data();
  spare.give(std::move(body));
  const std::string taken = spare.take();
  EXPECT_TRUE(taken.empty());
  EXPECT_GE(taken.capacity(), spare_body::least);
  EXPECT_EQ(taken.data(), memory);  // the same pages, not new ones
  EXPECT_EQ(spare.take().capacity(), std::string().capacity());  // taken once only
}

TEST(SpareBody, SmallAndHugeBodiesAreNotKept) {
  spare_body spare;
  spare.give(body_of(spare_body::least - 1));
  EXPECT_FALSE(spare.expiry().has_value());
  std::string huge;
  huge.reserve(spare_body::most + 1);
  spare.give(std::move(huge));
  EXPECT_FALSE(spare.expiry().has_value());
  EXPECT_LT(spare.take().capacity(), spare_body::least);
}

TEST(SpareBody, OneBodyIsKeptAtATime) {
  spare_body spare;
  std::string first = body_of(spare_body::least);
  const char* memory = first.data();
  spare.give(std::move(first));
  spare.give(body_of(spare_body::least));  // freed: one is kept already
  EXPECT_EQ(spare.take().data(), memory);
  EXPECT_LT(spare.take().capacity(), spare_body::least);
}

TEST(SpareBody, KeptMemoryIsLetGoOnceItsTimeHasPassed) {
  spare_body spare;
  const auto now = spare_body::clock::now();
  spare.give(body_of(spare_body::least), now);
  ASSERT_TRUE(spare.expiry().has_value());
  EXPECT_EQ(*spare.expiry(), now + spare_body::keep_for);
  spare.expire(now + spare_body::keep_for / 2);
  EXPECT_TRUE(spare.expiry().has_value()) << "let go too early";
  spare.expire(now + spare_body::keep_for);
  EXPECT_FALSE(spare.expiry().has_value());
  EXPECT_LT(spare.take().capacity(), spare_body::least);
}

TEST(SpareBody, ASmallBodyEncodedIntoTakenMemoryGivesItBackAndKeepsItsBytes) {
  spare_body spare;
  std::string kept = body_of(spare_body::least);
  const char* memory = kept.data();
  spare.give(std::move(kept));
  std::string body = spare.take();
  body.assign("a small task");
  spare.settle(body);
  EXPECT_EQ(body, "a small task");
  EXPECT_LT(body.capacity(), spare_body::least);
  EXPECT_EQ(spare.take().data(), memory);
}

TEST(SpareBody, ALargeBodyEncodedIntoTakenMemoryKeepsIt) {
  spare_body spare;
  spare.give(body_of(spare_body::least));
  std::string body = spare.take();
  body.assign(spare_body::least, 'l');
  const char* memory = body.data();
  spare.settle(body);
  EXPECT_EQ(body.data(), memory);
  EXPECT_FALSE(spare.expiry().has_value());
}

}  // namespace
