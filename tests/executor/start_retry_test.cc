// Copyright ferry authors.
//
// When a pool starts a worker again after starts failed, and when it gives
// up and fails its queue (src/executor/pool/start_retry.h).
#include "executor/pool/start_retry.h"

#include <gtest/gtest.h>

namespace {

using ferry::detail::start_retry;
using namespace std::chrono_literals;

TEST(StartRetry, ALastingFailureWithNoWorkerServingIsHopelessAtOnce) {
  start_retry r;
  EXPECT_EQ(r.failed(true, false, start_retry::clock::now()), start_retry::verdict::hopeless);
}

TEST(StartRetry, ALastingFailureWhileOthersServeWaitsAndTriesAgain) {
  start_retry r;
  const auto now = start_retry::clock::now();
  EXPECT_EQ(r.failed(true, true, now), start_retry::verdict::retry_later);
  EXPECT_FALSE(r.may_start(now));
  EXPECT_EQ(r.next_try(now), now + start_retry::lasting_delay);
  EXPECT_TRUE(r.may_start(now + start_retry::lasting_delay));
}

TEST(StartRetry, PassingFailuresBackOffEverMoreSlowlyUpToTheMaximum) {
  start_retry r;
  auto now = start_retry::clock::now();
  std::chrono::nanoseconds last{0};
  for (int i = 0; i < 12; ++i) {
    ASSERT_EQ(r.failed(false, false, now), start_retry::verdict::retry_later) << "failure " << i;
    const auto wait = *r.next_try(now) - now;
    EXPECT_GE(wait, last);
    EXPECT_LE(wait, start_retry::max_backoff);
    last = wait;
  }
  EXPECT_EQ(last, start_retry::max_backoff);
}

TEST(StartRetry, PassingFailuresBecomeHopelessOnlyAfterTheStartTimeout) {
  start_retry r;
  const auto first = start_retry::clock::now();
  for (int i = 0; i < 5; ++i) ASSERT_EQ(r.failed(false, false, first), start_retry::verdict::retry_later);
  EXPECT_EQ(r.failed(false, false, first + start_retry::start_timeout), start_retry::verdict::hopeless);
  // Given up: the count starts again.
  EXPECT_EQ(r.failed(false, false, first + start_retry::start_timeout), start_retry::verdict::retry_later);
}

TEST(StartRetry, AWorkerBecomingReadyEndsTheRunOfFailures) {
  start_retry r;
  const auto first = start_retry::clock::now();
  for (int i = 0; i < 5; ++i) r.failed(false, false, first);
  r.succeeded();
  EXPECT_EQ(r.failed(false, false, first + start_retry::start_timeout), start_retry::verdict::retry_later);
}

}  // namespace
