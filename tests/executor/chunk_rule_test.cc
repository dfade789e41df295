// Copyright ferry authors.
//
// The automatic chunk size of a map (src/executor/maps/chunk_rule.h).
#include "executor/maps/chunk_rule.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace std::chrono_literals;
using ferry::detail::chunk_rule;

TEST(ChunkRule, NothingMeasuredKeepsTheLastSize) {
  const chunk_rule rule{.workers = 2};
  EXPECT_EQ(rule.next(chunk_rule::first, 0, 0ns), 1u);
  EXPECT_EQ(rule.next(7, 0, 0ns), 7u);
  EXPECT_EQ(rule.next(0, 0, 0ns), 1u);
}

TEST(ChunkRule, FastTasksGrowTheChunkAtMostTwofoldAChunk) {
  const chunk_rule rule{.workers = 2};
  // 100 000 inputs a second per worker: 500 fit in 5 ms.
  EXPECT_EQ(rule.next(1, 200000, 1s), 2u);
  EXPECT_EQ(rule.next(2, 200000, 1s), 4u);
  EXPECT_EQ(rule.next(300, 200000, 1s), 500u);
  EXPECT_EQ(rule.next(500, 200000, 1s), 500u);
}

TEST(ChunkRule, TasksLongerThanTheTargetGetChunksOfOne) {
  const chunk_rule rule{.workers = 4};
  EXPECT_EQ(rule.next(64, 8, 1s), 1u);  // 2 a second per worker
  EXPECT_EQ(rule.next(1, 1, 10s), 1u);
}

TEST(ChunkRule, ChunksOfAMeasuredRateFollowIt) {
  const chunk_rule rule{.workers = 2};
  // 1 ms a task: 5 per chunk.
  EXPECT_EQ(rule.next(64, 2000, 1s), 5u);
}

TEST(ChunkRule, AKnownInputGivesEachWorkerAtLeastFourChunks) {
  const chunk_rule sized{.workers = 2, .input_size = 1000};
  EXPECT_EQ(sized.next(4096, 10'000'000, 1s), 125u);
  const chunk_rule tiny{.workers = 8, .input_size = 3};
  EXPECT_EQ(tiny.next(64, 10'000'000, 1s), 1u);
  const chunk_rule unsized{.workers = 2};
  EXPECT_EQ(unsized.next(4096, 10'000'000'000, 1s), chunk_rule::most_without_size);
}
