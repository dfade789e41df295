// Copyright ferry authors.
//
// src/executor/worker/worker.cc: ferry::serve_if_worker, the first call of
// a program that a pool may spawn as its worker. Without the variables a
// pool sets it returns at once; with them, the process becomes the worker
// on the descriptor they name, unless the pool that set them is already
// gone. The cases that become workers run in forked children.
#include <executor/worker.h>

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "executor/wire/protocol.h"

namespace {

namespace protocol = ferry::detail::protocol;

// The exit status of `child`, waiting at most 10 s (then killing it).
int exit_status_of(pid_t child) {
  for (int i = 0; i < 1000; ++i) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ADD_FAILURE() << "the child did not exit";
  return -1;
}

TEST(Worker, WithoutAPoolsVariablesAProgramGoesOnAsItself) {
  ::unsetenv(protocol::worker_fd_variable);
  char name[] = "program";
  char* argv[] = {name, nullptr};
  ferry::serve_if_worker(1, argv);  // returns: this test goes on
  EXPECT_FALSE(ferry::is_worker_process());
}

TEST(Worker, AProgramSpawnedByAPoolServesOnTheDescriptorItNames) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  const pid_t pool = ::getpid();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(sv[0]);
    ::setenv(protocol::worker_fd_variable, std::to_string(sv[1]).c_str(), 1);
    ::setenv(protocol::parent_pid_variable, std::to_string(pool).c_str(), 1);
    ferry::serve_if_worker(0, nullptr);
    ::_exit(99);  // not reached: serve ends the process
  }
  ::close(sv[1]);
  ::close(sv[0]);  // the pool goes before its hello: the worker's protocol error
  const int status = exit_status_of(child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == protocol::protocol_error_status) << status;
}

TEST(Worker, AWorkerWhosePoolIsAlreadyGoneEndsAtOnce) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::setenv(protocol::worker_fd_variable, std::to_string(sv[1]).c_str(), 1);
    // Another process than its parent: the pool that spawned it died and
    // it was adopted before it got here.
    ::setenv(protocol::parent_pid_variable, "1", 1);
    ferry::serve_if_worker(0, nullptr);
    ::_exit(99);
  }
  ::close(sv[1]);
  const int status = exit_status_of(child);
  ::close(sv[0]);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
}

}  // namespace
