// Copyright ferry authors.
//
// src/executor/pool/in_process_worker.cc: a worker that is a thread of the
// pool's process (start_method::in_process), seen by the pool as a
// process would be: an id, a descriptor readable when it ends, and a wait
// status. The pool's side of the socket is the test's.
#include "executor/pool/in_process_worker.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor/wire/protocol.h"

namespace {

using ferry::detail::in_process_worker;
using ferry::detail::unique_fd;

TEST(InProcessWorker, AThreadOfThisProcessEndsAsAProcessWouldWithTheLoopsStatus) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  unique_fd pool_end(sv[0]);
  in_process_worker worker{unique_fd(sv[1]), unique_fd()};  // one socket both ways
  EXPECT_GT(worker.tid(), 0);
  EXPECT_NE(worker.tid(), ::getpid()) << "its id is its thread's, not the process's";
  unique_fd ended = worker.take_exit_fd();
  ASSERT_TRUE(ended);
  pollfd p{.fd = ended.get(), .events = POLLIN, .revents = 0};
  EXPECT_EQ(::poll(&p, 1, 50), 0) << "ended before its pool did anything";
  pool_end.reset();  // no hello ever comes: worker_loop's protocol error
  ASSERT_EQ(::poll(&p, 1, 10000), 1) << "the end descriptor never became readable";
  char c;
  EXPECT_EQ(::read(ended.get(), &c, 1), 0) << "the end is an end of file";
  const int status = worker.join();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), ferry::detail::protocol::protocol_error_status);
  EXPECT_EQ(worker.join(), status) << "a second join gives the same status";
}

}  // namespace
