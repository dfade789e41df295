// Copyright ferry authors.
//
// One end of a pool-worker channel (src/executor/wire/connection.h): what
// it signs, what it refuses, what a batch that could not leave says, and
// what wakes a reader of two sockets.
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "executor/wire/connection.h"

using ferry::detail::authentication_failure;
using ferry::detail::channel_auth;
using ferry::detail::connection;
using ferry::detail::message;
using ferry::detail::protocol_error;
using ferry::detail::unique_fd;
namespace protocol = ferry::detail::protocol;

namespace {

const std::string key_a(protocol::key_size, 'a');
const std::string key_b(protocol::key_size, 'b');

// The pool's end and the worker's end of one socket pair.
struct channel {
  std::optional<connection> pool, worker;
  explicit channel(connection::settings s = {1u << 20}) {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    pool.emplace(unique_fd(sv[0]), s);
    worker.emplace(unique_fd(sv[1]), s);
  }
};

// The pool's end and the worker's end of two socket pairs, one per
// direction, as the pool launches its workers (launcher.h).
struct two_way_channel {
  std::optional<connection> pool, worker;
  two_way_channel() {
    int tasks[2], results[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, tasks), 0);
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, results), 0);
    pool.emplace(unique_fd(results[0]), unique_fd(tasks[0]), connection::settings{1u << 20});
    worker.emplace(unique_fd(tasks[1]), unique_fd(results[1]), connection::settings{1u << 20});
  }
};

// A thread's scheduler state ('S': asleep) and its voluntary context
// switches so far, from /proc.
char state_of(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}
long voluntary_switches(pid_t tid) {
  std::ifstream status("/proc/self/task/" + std::to_string(tid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("voluntary_ctxt_switches:")) return std::stol(line.substr(line.find(':') + 1));
  return -1;
}

std::optional<message> next(connection& c) {
  if (std::optional<message> m = c.next()) return m;
  c.fill();
  return c.next();
}

}  // namespace

TEST(Connection, QueuedMessagesLeaveInOneFlushAndArriveSignedInOrder) {
  channel c;
  c.pool->authenticate(key_a, channel_auth::side::pool);
  c.worker->authenticate(key_a, channel_auth::side::worker);
  std::vector<std::string> bodies;
  for (std::uint64_t id = 1; id <= 3; ++id) bodies.push_back("body " + std::to_string(id));
  for (std::uint64_t id = 1; id <= 3; ++id) c.pool->queue({protocol::kind::task, id, bodies[id - 1]});
  EXPECT_TRUE(c.pool->has_queued());
  EXPECT_EQ(c.pool->flush(), 0u);
  EXPECT_FALSE(c.pool->has_queued());
  for (std::uint64_t id = 1; id <= 3; ++id) {
    std::optional<message> m = next(*c.worker);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->header.id, id);
    EXPECT_EQ(m->body->view(), "body " + std::to_string(id));
  }
}

TEST(Connection, AMessageSignedUnderAnotherKeyIsRefused) {
  channel c;
  c.pool->authenticate(key_a, channel_auth::side::pool);
  c.worker->authenticate(key_b, channel_auth::side::worker);
  c.pool->send({protocol::kind::task, 1, "x"});
  EXPECT_THROW(next(*c.worker), authentication_failure);
}

TEST(Connection, TheHelloGoesUnsignedAndWhatFollowsIsSigned) {
  channel c;
  c.pool->authenticate(key_a, channel_auth::side::pool);
  c.pool->send_unsigned({protocol::kind::hello, 0, "the key travels here"});
  std::optional<message> hello = c.worker->read_blocking();
  ASSERT_TRUE(hello);
  EXPECT_EQ(hello->header.type, protocol::kind::hello);
  c.worker->authenticate(key_a, channel_auth::side::worker);
  c.worker->send({protocol::kind::ready});
  std::optional<message> ready = c.pool->read_blocking();
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->header.type, protocol::kind::ready);
}

TEST(Connection, AnUnsignedMessageAfterAuthenticationIsRefused) {
  channel c;
  c.worker->authenticate(key_a, channel_auth::side::worker);
  c.pool->send({protocol::kind::task, 1, "unsigned"});  // the pool's end never authenticated
  EXPECT_THROW(next(*c.worker), authentication_failure);
}

TEST(Connection, ABatchThatCannotLeaveSaysHowManyOfItsMessagesNeverLeft) {
  channel c;
  c.worker->close();
  c.pool->queue({protocol::kind::task, 1, "a"});
  c.pool->queue({protocol::kind::task, 2, "b"});
  EXPECT_EQ(c.pool->flush(), 2u);
  EXPECT_FALSE(c.pool->has_queued());
}

TEST(Connection, SendingOnAClosedConnectionIsAProtocolError) {
  channel c;
  c.pool->close();
  EXPECT_FALSE(c.pool->is_open());
  EXPECT_EQ(c.pool->fd(), -1);
  EXPECT_THROW(c.pool->send({protocol::kind::exit}), protocol_error);
  c.pool->queue({protocol::kind::task, 1, "a"});
  EXPECT_EQ(c.pool->flush(), 1u);
}

TEST(Connection, ABodyAboveTheThresholdArrivesWholeThroughSharedMemory) {
  channel c({1u << 24, 4096, true});
  const std::string large(1u << 20, 'L');
  c.pool->send({protocol::kind::task, 7, large});
  std::vector<int> reused;
  c.pool->append_descriptors(reused);
  EXPECT_EQ(reused.size(), 1u);  // it went through a reused file
  std::optional<message> m = c.worker->read_blocking();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->header.id, 7u);
  EXPECT_EQ(m->body->view(), large);
}

TEST(Connection, AnIncomingBodyAboveTheMaximumIsAProtocolError) {
  channel c({64});
  c.pool->send({protocol::kind::task, 1, std::string(1000, 'x')});
  EXPECT_THROW(
      {
        c.worker->fill();
        c.worker->next();
      },
      protocol_error);
}

TEST(Connection, AMessageThatPassesDescriptorsCannotWaitInABatch) {
  channel c;
  const int passed[1] = {0};
  EXPECT_THROW(c.pool->queue({protocol::kind::task, 1, "x", 0, std::span<const int>(passed, 1)}), protocol_error);
  EXPECT_FALSE(c.pool->has_queued());
}

TEST(Connection, AWorkerAsleepForItsNextTaskIsNotWokenWhenThePoolReadsItsResult) {
  two_way_channel c;
  std::atomic<pid_t> tid{0};
  std::optional<message> task;
  std::thread worker([&] {
    tid = ::gettid();
    c.worker->send({protocol::kind::result, 1, "a result"});
    task = c.worker->read_blocking();
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((tid == 0 || state_of(tid) != 'S') && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(state_of(tid), 'S') << "the worker never went to sleep for its task";
  const long before = voluntary_switches(tid);
  std::optional<message> result = c.pool->read_blocking();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->body->view(), "a result");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(voluntary_switches(tid), before) << "reading the result woke the worker waiting for a task";
  c.pool->send({protocol::kind::task, 2, "a task"});
  worker.join();
  ASSERT_TRUE(task);
  EXPECT_EQ(task->body->view(), "a task");
}

TEST(Connection, TwoSocketsCarryOneDirectionEachAndShutDownEndsThePeersRead) {
  two_way_channel c;
  c.pool->send({protocol::kind::task, 1, "down the tasks' socket"});
  std::optional<message> m = next(*c.worker);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body->view(), "down the tasks' socket");
  c.worker->queue({protocol::kind::result, 1, "up the results' socket"});
  EXPECT_EQ(c.worker->flush(), 0u);
  m = next(*c.pool);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body->view(), "up the results' socket");
  std::vector<int> held;
  c.pool->append_descriptors(held);
  EXPECT_EQ(held, std::vector<int>{c.pool->out_fd()}) << "a forked worker must close the written socket too";
  c.pool->shut_down();
  EXPECT_FALSE(c.worker->read_blocking()) << "a worker reads the end of its tasks once the pool shuts down";
  EXPECT_THROW(c.worker->send({protocol::kind::result, 2, "x"}), protocol_error);
}
