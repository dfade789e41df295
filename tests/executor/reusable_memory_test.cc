// Copyright ferry authors.
//
// Large bodies in shared memory reused from message to message
// (src/executor/wire/reusable_memory_linux.h): when a file is reused, when it is
// not, what a receiver refuses, and that nothing stays open.
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "executor/wire/message_io.h"
#include "executor/wire/shared_memory_linux.h"
#include "socket_test_util.h"

using ferry::detail::message;
using ferry::detail::message_reader;
using ferry::detail::protocol_error;
using ferry::detail::reusable_body_offset;
using ferry::detail::reusable_buffers;
using ferry::detail::write_message;
namespace protocol = ferry::detail::protocol;
using ferry_test::send_header_and_descriptor;
using ferry_test::socket_pair;

namespace {

std::size_t open_descriptors() {
  std::size_t n = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (::readdir(d) != nullptr) ++n;
    ::closedir(d);
  }
  return n;
}

constexpr std::size_t threshold = 1024;

// A body of `size` bytes, each position's byte depending on `seed`, so that
// a stale body left from an earlier message is told from this one.
std::string body_of(std::size_t size, char seed) {
  std::string b(size, '\0');
  for (std::size_t i = 0; i < size; ++i) b[i] = static_cast<char>(seed + static_cast<char>(i % 251));
  return b;
}

// Sends `body` through `reuse` and reads it back: the message as received.
message round(socket_pair& s, message_reader& r, reusable_buffers& reuse, const std::string& body) {
  write_message(s.a, nullptr, {protocol::kind::result, 1, body}, threshold, &reuse);
  std::optional<message> m = r.read_blocking(s.b);
  EXPECT_TRUE(m);
  return std::move(*m);
}

std::string identity(const message& m) {
  // The body's bytes live right after the control page of its file: the
  // address of the mapping tells two files apart while both are mapped.
  return std::to_string(reinterpret_cast<std::uintptr_t>(m.body->view().data()));
}

}  // namespace

TEST(ReusableMemory, ALargeBodyGoesThroughAReusableFileAndArrivesWhole) {
  socket_pair s;
  message_reader r(1u << 30);
  reusable_buffers reuse;
  const std::string body = body_of(300 * 1024, 'a');
  message m = round(s, r, reuse, body);
  EXPECT_NE(m.header.flags & protocol::flag_shared_memory, 0);
  EXPECT_NE(m.header.flags & protocol::flag_reusable_memory, 0);
  EXPECT_EQ(m.body->view(), body);
  EXPECT_EQ(reuse.size(), 1u);
}

TEST(ReusableMemory, AFileIsReusedOnlyAfterTheReceiverDroppedTheBody) {
  socket_pair s;
  message_reader r(1u << 30);
  reusable_buffers reuse;
  const std::string first = body_of(100 * 1024, 'a');
  const std::string second = body_of(100 * 1024, 'b');
  const std::string third = body_of(90 * 1024, 'c');
  std::optional<message> held = round(s, r, reuse, first);
  // The first body is still held: the second cannot overwrite it.
  message m2 = round(s, r, reuse, second);
  EXPECT_EQ(reuse.size(), 2u);
  EXPECT_EQ(held->body->view(), first);
  EXPECT_EQ(m2.body->view(), second);
  const std::string where_first = identity(*held);
  held.reset();
  // Now the first file is free, and the same mapping serves the third body.
  message m3 = round(s, r, reuse, third);
  EXPECT_EQ(reuse.size(), 2u);
  EXPECT_EQ(identity(m3), where_first);
  EXPECT_EQ(m3.body->view(), third);
  EXPECT_EQ(m2.body->view(), second);
}

TEST(ReusableMemory, WhenEveryFileIsHeldTheBodyGoesInASealedFileInstead) {
  socket_pair s;
  message_reader r(1u << 30);
  reusable_buffers reuse;
  std::vector<message> held;
  for (std::size_t i = 0; i < reusable_buffers::max_buffers; ++i)
    held.push_back(round(s, r, reuse, body_of(8 * 1024, static_cast<char>('a' + i))));
  const std::string last = body_of(8 * 1024, 'z');
  message m = round(s, r, reuse, last);
  EXPECT_NE(m.header.flags & protocol::flag_shared_memory, 0);
  EXPECT_EQ(m.header.flags & protocol::flag_reusable_memory, 0);
  EXPECT_EQ(m.body->view(), last);
  EXPECT_EQ(reuse.size(), reusable_buffers::max_buffers);
  for (std::size_t i = 0; i < held.size(); ++i)
    EXPECT_EQ(held[i].body->view(), body_of(8 * 1024, static_cast<char>('a' + i)));
}

TEST(ReusableMemory, ABodyLargerThanEveryIdleFileReplacesTheSmallestOnceTheLimitIsReached) {
  socket_pair s;
  message_reader r(1u << 30);
  reusable_buffers reuse;
  for (std::size_t i = 0; i < reusable_buffers::max_buffers; ++i) {
    std::vector<message> held;  // all at once, so each needs a file of its own
    for (std::size_t j = 0; j <= i; ++j) held.push_back(round(s, r, reuse, body_of(4 * 1024, 'a')));
  }
  ASSERT_EQ(reuse.size(), reusable_buffers::max_buffers);
  const std::string big = body_of(3u << 20, 'q');  // more than the 2 MiB each file has room for
  message m = round(s, r, reuse, big);
  EXPECT_NE(m.header.flags & protocol::flag_reusable_memory, 0);
  EXPECT_EQ(m.body->view(), big);
  EXPECT_EQ(reuse.size(), reusable_buffers::max_buffers);
}

TEST(ReusableMemory, NothingStaysOpenOrMappedOnceBothSidesAreGone) {
  const std::size_t before = open_descriptors();
  {
    socket_pair s;
    message_reader r(1u << 30);
    reusable_buffers reuse;
    for (int i = 0; i < 20; ++i) {
      message m = round(s, r, reuse, body_of(64 * 1024 + static_cast<std::size_t>(i) * 4096, 'k'));
      EXPECT_EQ(m.body->view().size(), 64u * 1024 + static_cast<std::size_t>(i) * 4096);
    }
    EXPECT_EQ(reuse.size(), 1u);
  }
  EXPECT_EQ(open_descriptors(), before);
}

namespace {

constexpr std::uint8_t reusable_flags = protocol::flag_shared_memory | protocol::flag_reusable_memory;

}  // namespace

// A file the sender could shrink would make the receiver's read of the
// mapping fault (SIGBUS): refused.
TEST(ReusableMemory, AFileThatCanShrinkIsRefused) {
  socket_pair s;
  const int mem = ::memfd_create("not-sealed", MFD_CLOEXEC);
  ASSERT_GE(mem, 0);
  ASSERT_EQ(::ftruncate(mem, reusable_body_offset + 4096), 0);
  protocol::header h{protocol::magic, protocol::kind::result, reusable_flags, 0, 1, 4096, 0, {}};
  send_header_and_descriptor(s.a, h, mem);
  ::close(mem);
  message_reader r(1u << 20);
  try {
    (void)r.read_blocking(s.b);
    FAIL() << "an unsealed reusable file was accepted";
  } catch (const protocol_error& e) {
    EXPECT_NE(std::string(e.what()).find("sealed against shrinking"), std::string::npos) << e.what();
  }
}

TEST(ReusableMemory, ALengthPastTheFilesRoomIsRefused) {
  socket_pair s;
  const int mem = ::memfd_create("small", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_GE(mem, 0);
  ASSERT_EQ(::ftruncate(mem, reusable_body_offset + 4096), 0);
  ASSERT_EQ(::fcntl(mem, F_ADD_SEALS, F_SEAL_SHRINK), 0);
  protocol::header h{protocol::magic, protocol::kind::result, reusable_flags, 0, 1, 4097, 0, {}};
  send_header_and_descriptor(s.a, h, mem);
  ::close(mem);
  message_reader r(1u << 20);
  EXPECT_THROW((void)r.read_blocking(s.b), protocol_error);
}
