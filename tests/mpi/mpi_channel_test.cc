// Copyright ferry authors.
//
// src/mpi/mpi_channel.cc: ferry's messages between the ranks of an MPI
// job, here between this process and itself over MPI_COMM_SELF, in a
// singleton job (singleton_mpi.h).
#include "mpi/mpi_channel.h"

#include <gtest/gtest.h>

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

#include <serialize/error.h>
#include "executor/wire/message_io.h"
#include "singleton_mpi.h"

namespace {

using ferry::detail::mpi::channel;
using ferry::detail::mpi::kind;
using namespace std::chrono_literals;

// The next message, polling for at most 10 s.
std::optional<ferry::detail::mpi::message> receive(channel& ch) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto m = ch.poll()) return m;
    ch.progress();
    std::this_thread::yield();
  }
  ADD_FAILURE() << "no message within 10 s";
  return std::nullopt;
}

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 31 + 7);
  return s;
}

TEST(MpiChannel, AMessageArrivesWithItsKindIdBodyAndSource) {
  ferry_test::ensure_mpi();
  channel ch(MPI_COMM_SELF);
  ch.send(0, kind::task, 42, "a task's body");
  const auto m = receive(ch);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->type, kind::task);
  EXPECT_EQ(m->id, 42u);
  EXPECT_EQ(m->body, "a task's body");
  EXPECT_EQ(m->source, 0);
  ch.flush();
  EXPECT_TRUE(ch.progress()) << "sends left after flush";
}

TEST(MpiChannel, ALargeBodyTravelsInPiecesAndArrivesWhole) {
  ferry_test::ensure_mpi();
  channel ch(MPI_COMM_SELF, 1000);  // pieces of at most 1000 bytes
  const std::string body = pattern(ferry::detail::mpi::inline_body_limit * 3 + 17);
  ch.send(0, kind::result, 7, body);
  const auto m = receive(ch);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body.size(), body.size());
  EXPECT_TRUE(m->body == body);
}

TEST(MpiChannel, AHeadAndBodyArriveAsOneBodySmallOrLarge) {
  ferry_test::ensure_mpi();
  channel ch(MPI_COMM_SELF, 4096);
  ch.send(0, kind::task_with_settings, 1, "head:", "small");
  const std::string large = pattern(ferry::detail::mpi::inline_body_limit + 1);
  ch.send(0, kind::task_with_settings, 2, "head:", large);
  const auto small_one = receive(ch);
  ASSERT_TRUE(small_one);
  EXPECT_EQ(small_one->body, "head:small");
  const auto large_one = receive(ch);
  ASSERT_TRUE(large_one);
  EXPECT_TRUE(large_one->body == "head:" + large);
}

TEST(MpiChannel, AHeldBodyIsSentWithoutACopyAndArrivesWhole) {
  ferry_test::ensure_mpi();
  channel ch(MPI_COMM_SELF, 1000);
  const std::string bytes = pattern(50'000);
  ch.send_held(0, kind::result, 9, ferry::detail::make_message_body(bytes));
  const auto m = receive(ch);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->id, 9u);
  EXPECT_TRUE(m->body == bytes);
}

TEST(MpiChannel, MessagesOfOneRankArriveInTheOrderSentWhateverTheirSizes) {
  ferry_test::ensure_mpi();
  channel ch(MPI_COMM_SELF, 2048);
  for (std::uint64_t i = 0; i < 40; ++i) ch.send(0, kind::task, i, pattern(i % 3 == 0 ? 20'000 : i));
  for (std::uint64_t i = 0; i < 40; ++i) {
    const auto m = receive(ch);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->id, i);
    EXPECT_EQ(m->body.size(), i % 3 == 0 ? 20'000u : i);
  }
}

TEST(MpiChannel, PendingSaysWhatPollWouldReturnAndReceivesNothing) {
  ferry_test::ensure_mpi();
  channel ch(MPI_COMM_SELF);
  EXPECT_FALSE(ch.pending());
  ch.send(0, kind::heartbeat, 0, "");
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!ch.pending() && std::chrono::steady_clock::now() < deadline) ch.progress();
  EXPECT_TRUE(ch.pending());
  EXPECT_TRUE(ch.pending()) << "pending received the message";
  const auto m = ch.poll();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->type, kind::heartbeat);
  EXPECT_FALSE(ch.pending());
}

TEST(MpiChannel, AHeaderOfAnUnknownKindOrAnotherSizeIsRefused) {
  ferry_test::ensure_mpi();
  channel ch(MPI_COMM_SELF);
  const std::uint64_t unknown[3] = {99, 1, 0};  // kind 99, id 1, no body
  MPI_Send(unknown, 3, MPI_UINT64_T, 0, ferry::detail::mpi::header_tag, MPI_COMM_SELF);
  EXPECT_THROW(receive(ch), ferry::error);
  const std::uint64_t short_header[2] = {1, 1};
  MPI_Send(short_header, 2, MPI_UINT64_T, 0, ferry::detail::mpi::header_tag, MPI_COMM_SELF);
  EXPECT_THROW(receive(ch), ferry::error);
}

TEST(MpiChannel, AnIdleLoopYieldsAtFirstThenSleepsLongerUpToItsBound) {
  ferry::detail::mpi::idle_backoff backoff(std::chrono::microseconds(200));
  EXPECT_EQ(backoff.next().count(), 0) << "just active: only yield";
  std::this_thread::sleep_for(1ms);  // past the window
  const auto first = backoff.next();
  EXPECT_GT(first.count(), 0);
  EXPECT_GT(backoff.next(), first);
  for (int i = 0; i < 10; ++i) backoff.next();
  EXPECT_EQ(backoff.next(), std::chrono::microseconds(200));
  backoff.reset();
  EXPECT_EQ(backoff.next().count(), 0);
}

}  // namespace
