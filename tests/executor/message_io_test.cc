// Copyright ferry authors.
//
// Messages between pool and workers on a socket: one named test per edge
// case.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "executor/wire/message_io.h"
#include "executor/wire/shared_memory_linux.h"
#include "socket_test_util.h"

using ferry::detail::authentication_failure;
using ferry::detail::channel_auth;
using ferry::detail::file_identity;
using ferry::detail::message_reader;
using ferry::detail::protocol_error;
using ferry::detail::write_message;
namespace protocol = ferry::detail::protocol;
using ferry_test::send_header_and_descriptor;
using ferry_test::socket_pair;

namespace {

// The bytes write_message puts on a socket for this message (small enough
// for the socket's buffer).
std::string sent_bytes(channel_auth* signer, protocol::kind type, std::uint64_t id,
                       std::string_view body, std::size_t threshold = 1u << 30) {
  socket_pair s;
  write_message(s.a, signer, {type, id, body}, threshold);
  ::close(s.a);
  s.a = -1;
  std::string bytes;
  char buf[4096];
  for (ssize_t n; (n = ::read(s.b, buf, sizeof buf)) > 0;) bytes.append(buf, static_cast<std::size_t>(n));
  return bytes;
}

std::string encoded(protocol::kind type, std::uint64_t id, std::string_view body) {
  return sent_bytes(nullptr, type, id, body);
}

}  // namespace

TEST(MessageIo, RoundTrip) {
  socket_pair s;
  std::string m("hello");
  write_message(s.a, nullptr, {protocol::kind::task, 7, m}, 1u << 20);
  message_reader r(1024);
  auto f = r.read_blocking(s.b);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->header.type, protocol::kind::task);
  EXPECT_EQ(f->header.id, 7u);
  EXPECT_EQ(f->body->view(), "hello");
}

TEST(MessageIo, PartialReadsOneByteAtATime) {
  socket_pair s;
  const std::string bytes = encoded(protocol::kind::result, 3, "partial body");
  message_reader r(1024);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    EXPECT_FALSE(r.next()) << "a message before byte " << i;
    ASSERT_EQ(::write(s.a, bytes.data() + i, 1), 1);
    EXPECT_EQ(r.fill(s.b), message_reader::fill_result::data);
  }
  auto f = r.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->body->view(), "partial body");
  EXPECT_EQ(r.fill(s.b), message_reader::fill_result::nothing);
}

TEST(MessageIo, PartialWritesOfALargeMessage) {
  socket_pair s;
  std::string body(8u << 20, 'z');
  body[body.size() - 1] = '!';
  std::thread writer([&] {
    std::string m(body);
    write_message(s.a, nullptr, {protocol::kind::task, 1, m}, 1u << 30);  // inline: bigger than the socket buffer
  });
  message_reader r(1u << 30);
  auto f = r.read_blocking(s.b);
  writer.join();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->body->view(), body);
}

TEST(MessageIo, TwoMessagesInOneRead) {
  socket_pair s;
  std::string both = encoded(protocol::kind::task, 1, "one") + encoded(protocol::kind::task, 2, "two");
  ASSERT_EQ(::write(s.a, both.data(), both.size()), static_cast<ssize_t>(both.size()));
  message_reader r(1024);
  EXPECT_EQ(r.fill(s.b), message_reader::fill_result::data);
  EXPECT_EQ(r.next()->body->view(), "one");
  EXPECT_EQ(r.next()->body->view(), "two");
  EXPECT_FALSE(r.next());
}

TEST(MessageIo, AReadThatTakesLessThanItHadRoomForSaysTheSocketHeldNoMore) {
  socket_pair s;
  // More than one read's room (64 KiB): the first read fills it, the last
  // takes what is left, and only that one is short.
  const std::string bytes = encoded(protocol::kind::task, 1, std::string(100u << 10, 'x'));
  ASSERT_EQ(::write(s.a, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));  // the buffer holds it
  message_reader r(1u << 20);
  ASSERT_EQ(r.fill(s.b), message_reader::fill_result::data);
  EXPECT_FALSE(r.last_fill_short()) << "the first read filled its room";
  ASSERT_EQ(r.fill(s.b), message_reader::fill_result::data);
  EXPECT_TRUE(r.last_fill_short()) << "the second read took what was left";
  EXPECT_EQ(r.next()->header.id, 1u);
  EXPECT_EQ(r.fill(s.b), message_reader::fill_result::nothing);
}

namespace {
void on_signal(int) {}
}  // namespace

TEST(MessageIo, EintrDuringABlockingRead) {
  struct sigaction sa {};
  sa.sa_handler = on_signal;  // no SA_RESTART: recvmsg fails with EINTR
  sigaction(SIGUSR1, &sa, nullptr);
  socket_pair s;
  std::atomic<bool> reading{false};
  std::optional<ferry::detail::message> got;
  std::thread reader([&] {
    message_reader r(1024);
    reading = true;
    got = r.read_blocking(s.b);
  });
  while (!reading) std::this_thread::yield();
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pthread_kill(reader.native_handle(), SIGUSR1);
  }
  std::string m("after signals");
  write_message(s.a, nullptr, {protocol::kind::task, 1, m}, 1u << 20);
  reader.join();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->body->view(), "after signals");
}

namespace {

// What the kernel says of thread `tid` of this process: its state letter
// (S: asleep) and how often it has blocked (voluntary context switches).
char thread_state(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const std::size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() ? '?' : line[paren + 2];
}

long times_blocked(pid_t tid) {
  std::ifstream status("/proc/self/task/" + std::to_string(tid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("voluntary_ctxt_switches:", 0) == 0) return std::stol(line.substr(line.find(':') + 1));
  return -1;
}

}  // namespace

// A worker waits for its next task right after sending a result; the pool
// reads that result later. The wait must not wake for it: a reader asleep
// in recvmsg was woken each time the peer consumed what it had sent (the
// socket's room to write), one context switch more per task.
TEST(MessageIo, AReaderWaitingForItsNextMessageSleepsWhileThePeerReadsWhatItSent) {
  socket_pair s;
  write_message(s.b, nullptr, {protocol::kind::result, 1, std::string(100, 'r')}, 1u << 20);
  std::atomic<pid_t> tid{0};
  std::optional<ferry::detail::message> got;
  std::thread reader([&] {
    tid = ::gettid();
    message_reader r(1024);
    got = r.read_blocking(s.b);
  });
  while (tid == 0) std::this_thread::yield();
  const auto asleep = [&] {
    for (int i = 0; i < 2000 && thread_state(tid) != 'S'; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return thread_state(tid) == 'S';
  };
  ASSERT_TRUE(asleep());
  const long before = times_blocked(tid);
  char result[4096];
  ASSERT_GT(::read(s.a, result, sizeof result), 0);  // the pool reads the result
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(asleep());
  EXPECT_EQ(times_blocked(tid), before) << "the waiting reader was woken by the peer's read";
  write_message(s.a, nullptr, {protocol::kind::task, 2, "next task"}, 1u << 20);
  reader.join();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->body->view(), "next task");
}

TEST(MessageIo, WaitingForInputReturnsFalseOnceItsTimePassesWithNoneCome) {
  socket_pair s;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(ferry::detail::wait_for_input(s.b, std::chrono::milliseconds(30)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(30));
  EXPECT_FALSE(ferry::detail::wait_for_input(s.b, std::chrono::milliseconds(0)));
}

TEST(MessageIo, WaitingForInputReturnsAsSoonAsInputComes) {
  socket_pair s;
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    write_message(s.a, nullptr, {protocol::kind::task, 1, "soon"}, 1u << 20);
  });
  const auto start = std::chrono::steady_clock::now();
  const bool came = ferry::detail::wait_for_input(s.b, std::chrono::seconds(30));
  const auto waited = std::chrono::steady_clock::now() - start;
  writer.join();
  EXPECT_TRUE(came);
  EXPECT_LT(waited, std::chrono::seconds(10));
  message_reader r(1024);
  ASSERT_EQ(r.fill(s.b), message_reader::fill_result::data);
  EXPECT_EQ(r.next()->body->view(), "soon");
}

TEST(MessageIo, WaitingForInputSeesAPeerThatIsGone) {
  socket_pair s;
  ::close(s.a);
  s.a = -1;
  EXPECT_TRUE(ferry::detail::wait_for_input(s.b, std::chrono::seconds(30)));
  message_reader r(1024);
  EXPECT_EQ(r.fill(s.b), message_reader::fill_result::end);
}

// Signals every 5 ms while a worker waits 200 ms for its next task (a
// profiler's timer, say): each one restarted the whole wait, so it never
// ended. It ends when its time is up.
TEST(MessageIo, SignalsMoreOftenThanTheWaitDoNotMakeItEndless) {
  struct sigaction sa {};
  sa.sa_handler = on_signal;  // no SA_RESTART
  sigaction(SIGUSR1, &sa, nullptr);
  socket_pair s;
  std::atomic<bool> done{false};
  std::atomic<bool> came{true};
  std::thread waiter([&] {
    came = ferry::detail::wait_for_input(s.b, std::chrono::milliseconds(200));
    done = true;
  });
  const auto start = std::chrono::steady_clock::now();
  while (!done && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    pthread_kill(waiter.native_handle(), SIGUSR1);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const bool ended = done;
  if (!ended) write_message(s.a, nullptr, {protocol::kind::task, 1, "end it"}, 1u << 20);
  waiter.join();
  EXPECT_TRUE(ended) << "the wait was still going after 20 s of signals";
  EXPECT_FALSE(came);
}

TEST(MessageIo, PeerClosesMidMessage) {
  socket_pair s;
  const std::string bytes = encoded(protocol::kind::result, 1, "cut off here");
  ASSERT_EQ(::write(s.a, bytes.data(), bytes.size() - 4), static_cast<ssize_t>(bytes.size() - 4));
  ::close(s.a);
  s.a = -1;
  message_reader r(1024);
  try {
    (void)r.read_blocking(s.b);
    FAIL() << "expected protocol_error";
  } catch (const protocol_error& e) {
    EXPECT_NE(std::string(e.what()).find("in the middle of a message"), std::string::npos) << e.what();
  }
}

TEST(MessageIo, CleanEndBetweenMessages) {
  socket_pair s;
  ::close(s.a);
  s.a = -1;
  message_reader r(1024);
  EXPECT_FALSE(r.read_blocking(s.b));
}

TEST(MessageIo, MessageAboveTheMaximum) {
  socket_pair s;
  std::string m(std::string(2048, 'x'));
  write_message(s.a, nullptr, {protocol::kind::task, 1, m}, 1u << 20);
  message_reader r(1024);
  try {
    (void)r.read_blocking(s.b);
    FAIL() << "expected protocol_error";
  } catch (const protocol_error& e) {
    EXPECT_NE(std::string(e.what()).find("2048 bytes is larger than the maximum of 1024"), std::string::npos)
        << e.what();
  }
}

TEST(MessageIo, BadMagic) {
  socket_pair s;
  std::string bytes = encoded(protocol::kind::task, 1, "x");
  bytes[0] ^= 0xff;
  ASSERT_EQ(::write(s.a, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  message_reader r(1024);
  EXPECT_THROW((void)r.read_blocking(s.b), protocol_error);
}

TEST(MessageIo, LargeBodyTravelsInSharedMemory) {
  socket_pair s;
  std::string body(64 * 1024, 'm');
  std::string m(body);
  write_message(s.a, nullptr, {protocol::kind::result, 9, m}, 1024);
  message_reader r(1u << 20);
  auto f = r.read_blocking(s.b);
  ASSERT_TRUE(f);
  EXPECT_NE(f->header.flags & protocol::flag_shared_memory, 0);
  EXPECT_EQ(f->body->view(), body);
}

namespace {

// Receives one header and the descriptor sent with it.
std::pair<protocol::header, int> receive_header_and_descriptor(int fd) {
  protocol::header h{};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  iovec iov{&h, sizeof h};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  EXPECT_EQ(::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC), static_cast<ssize_t>(sizeof h));
  int received = -1;
  if (cmsghdr* c = CMSG_FIRSTHDR(&msg)) std::memcpy(&received, CMSG_DATA(c), sizeof(int));
  return {h, received};
}

int sealed_memfd(const std::string& content) {
  const int mem = ::memfd_create("copy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  EXPECT_EQ(::write(mem, content.data(), content.size()), static_cast<ssize_t>(content.size()));
  EXPECT_EQ(::fcntl(mem, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL), 0);
  return mem;
}

}  // namespace

TEST(MessageIo, UnsealedSharedMemoryIsRefused) {
  socket_pair s;
  const int mem = ::memfd_create("unsealed", MFD_CLOEXEC);
  ASSERT_GE(mem, 0);
  ASSERT_EQ(::ftruncate(mem, 4096), 0);
  protocol::header h{protocol::magic, protocol::kind::result, protocol::flag_shared_memory, 0, 1, 4096, 0, {}};
  send_header_and_descriptor(s.a, h, mem);
  ::close(mem);
  message_reader r(1u << 20);
  EXPECT_THROW((void)r.read_blocking(s.b), protocol_error);
}

TEST(MessageIo, SharedMemoryFlagWithoutDescriptor) {
  socket_pair s;
  protocol::header h{protocol::magic, protocol::kind::result, protocol::flag_shared_memory, 0, 1, 10, 0, {}};
  ASSERT_EQ(::write(s.a, &h, sizeof h), static_cast<ssize_t>(sizeof h));
  message_reader r(1024);
  EXPECT_THROW((void)r.read_blocking(s.b), protocol_error);
}

// Descriptors passed beside a body (shared buffers): they arrive with their
// message, in order, and a count the descriptors do not match is refused.
TEST(MessageIo, PassedDescriptorsArriveWithTheirMessageInOrder) {
  socket_pair s;
  const int first = sealed_memfd("one");
  const int second = sealed_memfd("two, longer");
  const int passed[2] = {first, second};
  write_message(s.a, nullptr, {protocol::kind::task, 1, "before"}, SIZE_MAX);
  write_message(s.a, nullptr, {protocol::kind::task, 2, "with two", 0, passed}, SIZE_MAX);
  write_message(s.a, nullptr, {protocol::kind::task, 3, std::string(8192, 'b'), 0, passed}, 1024);
  message_reader r(1u << 20);
  auto plain = r.read_blocking(s.b);
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->body->attachments().empty());
  for (std::uint64_t id : {2, 3}) {
    auto m = r.read_blocking(s.b);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->header.id, id);
    ASSERT_EQ(m->body->attachments().size(), 2u);
    for (int i = 0; i < 2; ++i)
      EXPECT_EQ(file_identity(m->body->attachments()[i]), file_identity(passed[i])) << id << " " << i;
  }
  ::close(first);
  ::close(second);
}

TEST(MessageIo, AnAttachmentCountWithoutItsDescriptorsIsRefused) {
  socket_pair s;
  protocol::header h{protocol::magic, protocol::kind::task, 0, 2, 1, 0, 0, {}};
  ASSERT_EQ(::write(s.a, &h, sizeof h), static_cast<ssize_t>(sizeof h));
  message_reader r(1024);
  try {
    (void)r.read_blocking(s.b);
    FAIL() << "expected protocol_error";
  } catch (const protocol_error& e) {
    EXPECT_NE(std::string(e.what()).find("passes 2 descriptors but 0 came"), std::string::npos) << e.what();
  }
  socket_pair t;
  h.attachments = protocol::max_attachments + 1;
  ASSERT_EQ(::write(t.a, &h, sizeof h), static_cast<ssize_t>(sizeof h));
  message_reader r2(1024);
  EXPECT_THROW((void)r2.read_blocking(t.b), protocol_error);
}

// Authentication (channel_auth.h): each way a message can be forged, changed,
// replayed, reordered or reflected is refused.
namespace {

const std::string key_a(32, 'a');
const std::string key_b(32, 'b');

std::string signed_message(channel_auth& signer, protocol::kind type, std::uint64_t id,
                           std::string_view body) {
  return sent_bytes(&signer, type, id, body);
}

// Feeds bytes to a reader that verifies under `verifier`; the bodies read.
std::vector<std::string> read_all(channel_auth& verifier, const std::string& bytes) {
  socket_pair s;
  EXPECT_EQ(::write(s.a, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(s.a);
  s.a = -1;
  message_reader r(1u << 20);
  r.authenticate_with(&verifier);
  std::vector<std::string> bodies;
  while (auto f = r.read_blocking(s.b)) bodies.emplace_back(f->body->view());
  return bodies;
}

void expect_authentication_failure(channel_auth& verifier, const std::string& bytes,
                                   std::string_view why) {
  try {
    read_all(verifier, bytes);
    FAIL() << "expected authentication_failure";
  } catch (const authentication_failure& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

// Sends a captured header with `fd` (which it closes) on a fresh socket, and
// reads it as `reader` would, authenticating it under key_a.
std::optional<ferry::detail::message> resend(const protocol::header& h, int fd, channel_auth::side reader) {
  socket_pair s;
  send_header_and_descriptor(s.a, h, fd);
  ::close(fd);
  channel_auth auth(key_a, reader);
  message_reader r(1u << 20);
  r.authenticate_with(&auth);
  return r.read_blocking(s.b);
}

}  // namespace

TEST(MessageIoAuth, SignedMessagesVerifyInOrder) {
  channel_auth pool(key_a, channel_auth::side::pool);
  channel_auth worker(key_a, channel_auth::side::worker);
  const std::string first = signed_message(pool, protocol::kind::task, 1, "first");
  const std::string second = signed_message(pool, protocol::kind::task, 2, "second");
  EXPECT_EQ(read_all(worker, first + second), (std::vector<std::string>{"first", "second"}));
}

TEST(MessageIoAuth, SharedMemoryBodyIsAuthenticated) {
  channel_auth pool(key_a, channel_auth::side::pool);
  channel_auth worker(key_a, channel_auth::side::worker);
  socket_pair s;
  std::string body(64 * 1024, 'm');
  std::string m(body);
  write_message(s.a, &worker, {protocol::kind::result, 9, m}, 1024);
  message_reader r(1u << 20);
  r.authenticate_with(&pool);
  auto f = r.read_blocking(s.b);
  ASSERT_TRUE(f);
  EXPECT_NE(f->header.flags & protocol::flag_shared_memory, 0);
  EXPECT_EQ(f->body->view(), body);
}


// A shared-memory body is authenticated by the identity of its sealed file:
// the genuine header with another file of the same content is refused.
TEST(MessageIoAuth, SharedMemoryBodySwappedForAnotherFileIsRejected) {
  channel_auth worker(key_a, channel_auth::side::worker);
  const std::string body(64 * 1024, 's');
  socket_pair capture;
  std::string m(body);
  write_message(capture.a, &worker, {protocol::kind::result, 9, m}, 1024);
  auto [h, genuine] = receive_header_and_descriptor(capture.b);
  ASSERT_GE(genuine, 0);
  ASSERT_NE(h.flags & protocol::flag_shared_memory, 0);

  const int impostor = sealed_memfd(body);
  EXPECT_THROW((void)resend(h, impostor, channel_auth::side::pool), authentication_failure);
  auto f = resend(h, genuine, channel_auth::side::pool);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->body->view(), body);
}

// A passed descriptor is bound by its file's identity too: the genuine
// header with another file of the same content is refused.
TEST(MessageIoAuth, PassedDescriptorSwappedForAnotherFileIsRejected) {
  channel_auth pool(key_a, channel_auth::side::pool);
  const int genuine_sent = sealed_memfd("buffer");
  socket_pair capture;
  write_message(capture.a, &pool, {protocol::kind::task, 4, {}, 0, std::span<const int>(&genuine_sent, 1)}, SIZE_MAX);
  ::close(genuine_sent);
  auto [h, genuine] = receive_header_and_descriptor(capture.b);
  ASSERT_GE(genuine, 0);
  ASSERT_EQ(h.attachments, 1);
  const int impostor = sealed_memfd("buffer");
  EXPECT_THROW((void)resend(h, impostor, channel_auth::side::worker), authentication_failure);
  auto f = resend(h, genuine, channel_auth::side::worker);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->body->attachments().size(), 1u);
}

TEST(MessageIoAuth, EveryChangedByteIsRejected) {
  channel_auth pool(key_a, channel_auth::side::pool);
  const std::string good = signed_message(pool, protocol::kind::task, 5, "a task body");
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] ^= 0x01;
    channel_auth worker(key_a, channel_auth::side::worker);
    // A changed magic or length is a protocol error, the rest an
    // authentication failure; no message is ever delivered.
    EXPECT_THROW(read_all(worker, bad), ferry::error) << "byte " << i;
  }
}

TEST(MessageIoAuth, ForgedTagIsRejected) {
  channel_auth pool(key_a, channel_auth::side::pool);
  channel_auth worker(key_a, channel_auth::side::worker);
  std::string bytes = signed_message(pool, protocol::kind::task, 1, "body");
  std::memset(bytes.data() + 32, 0, 32);
  expect_authentication_failure(worker, bytes, "tag does not match");
}

TEST(MessageIoAuth, UnsignedMessageIsRejected) {
  channel_auth worker(key_a, channel_auth::side::worker);
  expect_authentication_failure(worker, encoded(protocol::kind::task, 1, "body"), "tag does not match");
}

TEST(MessageIoAuth, OtherKeyIsRejected) {
  channel_auth pool(key_b, channel_auth::side::pool);
  channel_auth worker(key_a, channel_auth::side::worker);
  expect_authentication_failure(worker, signed_message(pool, protocol::kind::task, 1, "body"),
                                "tag does not match");
}

TEST(MessageIoAuth, ReplayedMessageIsRejected) {
  channel_auth pool(key_a, channel_auth::side::pool);
  channel_auth worker(key_a, channel_auth::side::worker);
  const std::string once = signed_message(pool, protocol::kind::task, 1, "run me once");
  expect_authentication_failure(worker, once + once, "sequence number 0, expected 1");
}

TEST(MessageIoAuth, ReorderedMessagesAreRejected) {
  channel_auth pool(key_a, channel_auth::side::pool);
  channel_auth worker(key_a, channel_auth::side::worker);
  const std::string first = signed_message(pool, protocol::kind::task, 1, "first");
  const std::string second = signed_message(pool, protocol::kind::task, 2, "second");
  expect_authentication_failure(worker, second + first, "sequence number 1, expected 0");
}

TEST(MessageIoAuth, MessageReflectedToItsSenderIsRejected) {
  // A worker's own result sent back to it as if from the pool.
  channel_auth worker(key_a, channel_auth::side::worker);
  const std::string result = signed_message(worker, protocol::kind::result, 1, "result");
  channel_auth same_worker(key_a, channel_auth::side::worker);
  expect_authentication_failure(same_worker, result, "tag does not match");
}
