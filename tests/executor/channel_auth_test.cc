// Copyright ferry authors.
//
// The authentication of one pool-worker connection's messages
// (src/executor/wire/channel_auth.cc): what one side signs the other
// verifies, once and in order; a changed body, header or passed
// descriptor, a replay, a reflection, or another key fails.
#include "executor/wire/channel_auth.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using ferry::detail::authentication_failure;
using ferry::detail::channel_auth;
namespace protocol = ferry::detail::protocol;

protocol::header task_header(std::uint64_t id, std::string_view body) {
  protocol::header h{};
  h.magic = protocol::magic;
  h.type = protocol::kind::task;
  h.id = id;
  h.length = body.size();
  return h;
}

// A pool's side and a worker's, with one key.
struct channel {
  std::string key = ferry::detail::new_pool_key();
  channel_auth pool{key, channel_auth::side::pool};
  channel_auth worker{key, channel_auth::side::worker};
};

// The message of failure `verify` throws, or "" when it passes.
template <class Verify>
std::string failure_of(Verify&& verify) {
  try {
    verify();
  } catch (const authentication_failure& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST(ChannelAuth, APoolKeyIsFreshRandomBytesOfTheKeySize) {
  const std::string a = ferry::detail::new_pool_key(), b = ferry::detail::new_pool_key();
  EXPECT_EQ(a.size(), protocol::key_size);
  EXPECT_NE(a, b);
}

TEST(ChannelAuth, MessagesSignedByOneSideVerifyOnTheOtherInOrderBothWays) {
  channel c;
  for (std::uint64_t i = 0; i < 3; ++i) {
    auto to_worker = task_header(i, "task body");
    c.pool.sign(to_worker, "task body");
    EXPECT_EQ(to_worker.sequence, i);
    EXPECT_NO_THROW(c.worker.verify(to_worker, "task body"));
    auto to_pool = task_header(i, "result");
    c.worker.sign(to_pool, "result", "fd identities");
    EXPECT_NO_THROW(c.pool.verify(to_pool, "result", "fd identities"));
  }
}

TEST(ChannelAuth, AChangedBodyHeaderOrPassedDescriptorFailsAsForged) {
  channel c;
  auto h = task_header(1, "body");
  c.pool.sign(h, "body", "fd 1");
  EXPECT_NE(failure_of([&] { c.worker.verify(h, "bodY", "fd 1"); }).find("it was forged or changed"), std::string::npos);
  EXPECT_NE(failure_of([&] { c.worker.verify(h, "body", "fd 2"); }).find("it was forged or changed"), std::string::npos);
  auto other_task = h;
  other_task.id = 2;
  EXPECT_NE(failure_of([&] { c.worker.verify(other_task, "body", "fd 1"); }).find("forged"), std::string::npos);
  EXPECT_EQ(failure_of([&] { c.worker.verify(h, "body", "fd 1"); }), "");  // the original still verifies
}

TEST(ChannelAuth, AReplayedOrSkippedMessageFailsOnItsSequenceNumber) {
  channel c;
  auto first = task_header(1, "a"), second = task_header(2, "b");
  c.pool.sign(first, "a");
  c.pool.sign(second, "b");
  EXPECT_NE(failure_of([&] { c.worker.verify(second, "b"); }).find("sequence number 1, expected 0"),
            std::string::npos);
  EXPECT_EQ(failure_of([&] { c.worker.verify(first, "a"); }), "");
  EXPECT_NE(failure_of([&] { c.worker.verify(first, "a"); }).find("replayed or reordered"), std::string::npos);
}

TEST(ChannelAuth, AMessageReflectedBackToItsSenderFails) {
  channel c;
  auto h = task_header(1, "body");
  c.pool.sign(h, "body");
  EXPECT_NE(failure_of([&] { c.pool.verify(h, "body"); }).find("forged"), std::string::npos);
}

TEST(ChannelAuth, AnotherPoolsKeyFails) {
  channel c, other;
  auto h = task_header(1, "body");
  other.pool.sign(h, "body");
  EXPECT_NE(failure_of([&] { c.worker.verify(h, "body"); }).find("forged"), std::string::npos);
}
