// Copyright ferry authors.
//
// What the message tests share: a connected socket pair, and a header sent
// with one descriptor the way a sender of shared memory would, to feed a
// message_reader bytes no well-behaved sender writes.
#ifndef FERRY_TESTS_EXECUTOR_SOCKET_TEST_UTIL_H_
#define FERRY_TESTS_EXECUTOR_SOCKET_TEST_UTIL_H_

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>

#include "executor/wire/protocol.h"

namespace ferry_test {

struct socket_pair {
  int a = -1, b = -1;
  socket_pair() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    a = sv[0];
    b = sv[1];
  }
  ~socket_pair() {
    if (a >= 0) ::close(a);
    if (b >= 0) ::close(b);
  }
  socket_pair(const socket_pair&) = delete;
  socket_pair& operator=(const socket_pair&) = delete;
};

inline void send_header_and_descriptor(int fd, const ferry::detail::protocol::header& h, int pass) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  iovec iov{const_cast<ferry::detail::protocol::header*>(&h), sizeof h};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &pass, sizeof(int));
  EXPECT_EQ(::sendmsg(fd, &msg, 0), static_cast<ssize_t>(sizeof h));
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_SOCKET_TEST_UTIL_H_
