// Copyright ferry authors.
//
// src/executor/worker/task_server.cc: a worker's loop over its tasks once
// greeted. The server runs on a thread of this test, on one end of a
// socket pair; the test is the pool on the other end, its connection
// unauthenticated on both sides (authentication is worker_loop's, tested
// there). Nested tasks, which need a pool that answers submits, are
// nested_tasks_test.cc's.
#include "executor/worker/task_server.h"

#include <gtest/gtest.h>

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include <serialize/function.h>
#include "executor/wire/protocol.h"

namespace {

namespace protocol = ferry::detail::protocol;
using ferry::detail::connection;
using ferry::detail::unique_fd;
using namespace std::chrono_literals;

// A task of one item: twice its argument, or throws for a negative one.
std::string task_body(int argument) {
  std::string body;
  ferry::output_archive ar(body);
  const ferry::function<int(int)> twice = [](int x) {
    if (x < 0) throw std::invalid_argument("negative");
    return 2 * x;
  };
  ar(twice, std::uint32_t{1}, argument);
  return body;
}

// A server serving on its own thread, and the pool's end of its socket.
class served {
 public:
  served() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    pool.emplace(unique_fd(sv[0]), connection::settings{std::size_t{1} << 20});
    status_ = std::async(std::launch::async, [fd = sv[1]] {
      connection worker(unique_fd(fd), {std::size_t{1} << 20});
      ferry::detail::task_stop stop{unique_fd()};
      ferry::detail::task_server server(worker, {}, stop);
      return server.serve();
    });
    const auto ready = pool->read_blocking();
    EXPECT_TRUE(ready && ready->header.type == protocol::kind::ready) << "the server did not say ready first";
  }
  ~served() {
    if (pool) pool->close();
    if (status_.valid()) status_.wait();
  }

  // serve()'s return, within 10 s.
  int status() {
    if (status_.wait_for(10s) != std::future_status::ready) {
      ADD_FAILURE() << "the server did not return";
      pool->close();
    }
    return status_.get();
  }

  std::optional<connection> pool;

 private:
  std::future<int> status_;
};

// The result of `reply` (one item): its int, or the exception it holds.
int value_of(const ferry::detail::message& reply) {
  const protocol::decoded_result r = protocol::decode_result(reply.body->view(), 1);
  EXPECT_FALSE(r.whole_failed);
  const protocol::decoded_item item = protocol::decode_item(r.items.at(0));
  if (item.failed) throw std::runtime_error(item.failure.type_name + ": " + item.failure.what);
  ferry::input_archive in(item.value);
  int v = 0;
  in(v);
  return v;
}

TEST(TaskServer, EachTaskIsAnsweredUnderItsIdAndAnExitEndsTheServerAsServed) {
  served s;
  s.pool->send({protocol::kind::task, 5, task_body(21)});
  s.pool->send({protocol::kind::task, 6, task_body(1)});
  const auto first = s.pool->read_blocking();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->header.type, protocol::kind::result);
  EXPECT_EQ(first->header.id, 5u);
  EXPECT_EQ(value_of(*first), 42);
  const auto second = s.pool->read_blocking();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->header.id, 6u);
  EXPECT_EQ(value_of(*second), 2);
  s.pool->send({protocol::kind::exit});
  EXPECT_EQ(s.status(), protocol::served_status);
}

TEST(TaskServer, WhatATaskThrewIsItsResultAndTheServerGoesOn) {
  served s;
  s.pool->send({protocol::kind::task, 1, task_body(-1)});
  const auto thrown = s.pool->read_blocking();
  ASSERT_TRUE(thrown);
  EXPECT_EQ(thrown->header.type, protocol::kind::result);
  try {
    value_of(*thrown);
    ADD_FAILURE() << "no exception in the result";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "std::invalid_argument: negative");
  }
  s.pool->send({protocol::kind::task, 2, task_body(4)});
  const auto next = s.pool->read_blocking();
  ASSERT_TRUE(next);
  EXPECT_EQ(value_of(*next), 8);
}

TEST(TaskServer, APoolGoneEndsTheServerAsServed) {
  served s;
  s.pool->close();
  EXPECT_EQ(s.status(), protocol::served_status);
}

TEST(TaskServer, AMessageOfAKindNoPoolSendsIsAProtocolError) {
  served s;
  s.pool->send({protocol::kind::ready});
  EXPECT_EQ(s.status(), protocol::protocol_error_status);
}

TEST(TaskServer, AResultOfANestedTaskItNeverSubmittedIsAProtocolError) {
  served s;
  s.pool->send({protocol::kind::nested_result, 77, "whatever"});
  EXPECT_EQ(s.status(), protocol::protocol_error_status);
}

TEST(TaskServer, ATaskThatCannotBeReadFailsAloneAndTheServerGoesOn) {
  served s;
  s.pool->send({protocol::kind::task, 3, "not a task"});
  const auto failed = s.pool->read_blocking();
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->header.id, 3u);
  s.pool->send({protocol::kind::task, 4, task_body(5)});
  const auto next = s.pool->read_blocking();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->header.id, 4u);
  EXPECT_EQ(value_of(*next), 10);
}

}  // namespace
