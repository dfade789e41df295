// Copyright ferry authors.
//
// src/executor/worker/worker_loop.cc: a worker's side of its connection,
// from the hello to its exit status. The worker here is detail::serve in a
// child of this test; the test plays the pool. A worker given a message
// that does not verify (forged, changed, replayed) runs nothing and exits
// with protocol::authentication_status; one whose other end is no pool
// (no hello, a hello that cannot be read, a message no pool sends) exits
// with protocol_error_status; one whose initializer throws tells the pool
// and exits with start_failed_status; one whose task closed its socket
// exits with connection_closed_status.
#include <dlfcn.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cereal/types/map.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "../child_output.h"
#include "executor/wire/message_io.h"
#include "executor/wire/protocol.h"
#include "executor/worker/worker_loop.h"

namespace protocol = ferry::detail::protocol;
using ferry::detail::channel_auth;

namespace {

const std::string pool_key(protocol::key_size, 'p');

// The bytes write_message puts on the socket for this message.
std::string wire_bytes(channel_auth* auth, protocol::kind type, std::uint64_t id, std::string_view body) {
  int sv[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  ferry::detail::write_message(sv[0], auth, {type, id, body});
  ::close(sv[0]);
  std::string bytes;
  char buf[4096];
  for (ssize_t n; (n = ::read(sv[1], buf, sizeof buf)) > 0;) bytes.append(buf, static_cast<std::size_t>(n));
  ::close(sv[1]);
  return bytes;
}

// A task of one item: f(argument).
std::string task_message(const ferry::function<int(int)>& f, int argument) {
  std::string body;
  ferry::output_archive ar(body);
  ar(f, std::uint32_t{1}, argument);
  return body;
}

std::string task_message(int argument) { return task_message([](int x) { return 2 * x; }, argument); }

// The hello a pool sends, with this initializer (none by default).
std::string hello_body(const ferry::function<void()>& initializer = {}) {
  protocol::worker_config config;
  config.max_message_size = std::size_t{1} << 20;
  config.shared_memory_threshold = std::size_t{1} << 20;
  return protocol::encode_hello(pool_key, config, protocol::encode_initializer(initializer));
}

struct ungreeted {};

class forked_worker {
 public:
  // Greeted, and ready.
  forked_worker() : forked_worker(ungreeted{}) {
    send(wire_bytes(nullptr, protocol::kind::hello, 0, hello_body()));
    auto ready = next();
    EXPECT_TRUE(ready && ready->header.type == protocol::kind::ready);
  }
  // Sent nothing yet.
  explicit forked_worker(ungreeted) {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(sv[0]);
      ferry::detail::serve(sv[1]);
    }
    ::close(sv[1]);
    fd_ = sv[0];
    reader_.authenticate_with(&auth_);
  }
  ~forked_worker() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) ::close(fd_);
  }

  // The next message from the worker, authenticated; nullopt if it closed.
  std::optional<ferry::detail::message> next() { return reader_.read_blocking(fd_); }
  // The pool goes: the worker's end reads end-of-file.
  void close() {
    ::close(fd_);
    fd_ = -1;
  }

  channel_auth& auth() { return auth_; }
  void send(const std::string& bytes) {
    EXPECT_EQ(::write(fd_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  // The next result's first item, as an int; nullopt if the worker closed.
  std::optional<int> result() {
    auto f = reader_.read_blocking(fd_);
    if (!f) return std::nullopt;
    const std::string_view body = f->body->view();
    // u8 0, u32 count, u64 length, u8 status, the int.
    int value = 0;
    EXPECT_EQ(body.size(), 1u + 4 + 8 + 1 + sizeof value);
    std::memcpy(&value, body.data() + 14, sizeof value);
    return value;
  }
  // The worker's exit status, waiting at most 10 s.
  int exit_status() {
    for (int i = 0; i < 1000; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = 0;
        return status;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "the worker did not exit";
    return -1;
  }

 private:
  channel_auth auth_{pool_key, channel_auth::side::pool};
  ferry::detail::message_reader reader_{std::size_t{1} << 20};
  pid_t pid_ = 0;
  int fd_ = -1;
};

// The worker exited by itself with this status.
void expect_exit_status(forked_worker& w, int expected) {
  const int status = w.exit_status();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == expected) << "status " << status << ", expected exit " << expected;
}

void expect_refused(forked_worker& w) {
  EXPECT_FALSE(w.result()) << "the worker answered a message that does not verify";
  const int status = w.exit_status();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == protocol::authentication_status)
      << "status " << status;
}

}  // namespace

TEST(WorkerLoop, APoolGoneBeforeItsHelloIsAProtocolError) {
  forked_worker w{ungreeted{}};
  w.close();
  expect_exit_status(w, protocol::protocol_error_status);
}

TEST(WorkerLoop, AFirstMessageThatIsNoHelloIsAProtocolError) {
  forked_worker w{ungreeted{}};
  w.send(wire_bytes(nullptr, protocol::kind::exit, 0, std::string_view()));
  expect_exit_status(w, protocol::protocol_error_status);
}

TEST(WorkerLoop, AHelloThatCannotBeReadIsAProtocolError) {
  forked_worker w{ungreeted{}};
  w.send(wire_bytes(nullptr, protocol::kind::hello, 0, "too short to hold a key"));
  expect_exit_status(w, protocol::protocol_error_status);
}

TEST(WorkerLoop, AFailingInitializerIsToldToThePoolAndEndsTheWorker) {
  forked_worker w{ungreeted{}};
  const ferry::function<void()> failing = [] { throw std::runtime_error("no database"); };
  w.send(wire_bytes(nullptr, protocol::kind::hello, 0, hello_body(failing)));
  const auto told = w.next();
  ASSERT_TRUE(told);
  EXPECT_EQ(told->header.type, protocol::kind::start_failed);
  EXPECT_EQ(told->body->view(), "no database");
  expect_exit_status(w, protocol::start_failed_status);
}

TEST(WorkerLoop, APoolGoneAfterItsHelloEndsTheWorkerAsServed) {
  forked_worker w;
  w.close();
  expect_exit_status(w, protocol::served_status);
}

TEST(WorkerLoop, AMessageOfAKindNoPoolSendsIsAProtocolError) {
  forked_worker w;
  w.send(wire_bytes(&w.auth(), protocol::kind::ready, 0, std::string_view()));
  expect_exit_status(w, protocol::protocol_error_status);
}

// Its result cannot be sent: the worker names the cause with a status of
// its own, which the pool turns into "its socket ... was closed".
TEST(WorkerLoop, ATaskThatClosesTheWorkersSocketEndsItWithConnectionClosed) {
  forked_worker w;
  const ferry::function<int(int)> close_all = [](int x) {
    for (int fd = 3; fd < 1024; ++fd) ::close(fd);
    return x;
  };
  w.send(wire_bytes(&w.auth(), protocol::kind::task, 1, task_message(close_all, 1)));
  EXPECT_FALSE(w.result()) << "a result came through a closed socket";
  expect_exit_status(w, protocol::connection_closed_status);
}

TEST(WorkerLoop, SignedTaskRuns) {
  forked_worker w;
  w.send(wire_bytes(&w.auth(), protocol::kind::task, 1, task_message(21)));
  EXPECT_EQ(w.result(), 42);
  w.send(wire_bytes(&w.auth(), protocol::kind::exit, 0, std::string_view()));
  expect_exit_status(w, protocol::served_status);
}

TEST(WorkerLoop, ReplayedTaskIsRefused) {
  forked_worker w;
  const std::string once = wire_bytes(&w.auth(), protocol::kind::task, 1, task_message(21));
  w.send(once);
  EXPECT_EQ(w.result(), 42);
  w.send(once);
  expect_refused(w);
}

TEST(WorkerLoop, TaskUnderAnotherKeyIsRefused) {
  forked_worker w;
  channel_auth other(std::string(protocol::key_size, 'o'), channel_auth::side::pool);
  w.send(wire_bytes(&other, protocol::kind::task, 1, task_message(21)));
  expect_refused(w);
}

TEST(WorkerLoop, ChangedArgumentIsRefused) {
  forked_worker w;
  std::string bytes = wire_bytes(&w.auth(), protocol::kind::task, 1, task_message(21));
  bytes.back() ^= 0x01;  // the argument's last byte
  w.send(bytes);
  expect_refused(w);
}

TEST(WorkerLoop, UnsignedMessageIsRefused) {
  forked_worker w;
  w.send(wire_bytes(nullptr, protocol::kind::exit, 0, std::string_view()));
  expect_refused(w);
}

// The pool vouches for the modules its tasks name: a task that verifies may
// load one the worker was never allowed; one that does not verify (unsigned,
// or under another key) never gets as far as opening it. The marker module
// leaves a file when its initializer runs, so a refusal can be seen to have
// run nothing.
namespace {

// A task body calling the marker module's closure (x + 100) on `argument`,
// made by a child process that loads the module (so this one never has).
std::string marker_task(int argument) {
  std::string body = ferry_test::output_of_child([] {
    ::unsetenv("FERRY_TEST_MARKER");
    void* handle = ::dlopen(FERRY_TEST_MARKER_MODULE, RTLD_NOW);
    auto make = handle ? reinterpret_cast<std::string* (*)(const char*)>(::dlsym(handle, "ferry_test_make")) : nullptr;
    if (make == nullptr) throw std::runtime_error("cannot load the marker module");
    return *make("record");
  });
  ferry::output_archive ar(body);
  ar(std::uint32_t{1}, argument);
  return body;
}

class MarkerFile {
 public:
  MarkerFile() : path_("/tmp/ferry_worker_marker_" + std::to_string(::getpid())) {
    std::remove(path_.c_str());
    ::setenv("FERRY_TEST_MARKER", path_.c_str(), 1);
  }
  ~MarkerFile() {
    std::remove(path_.c_str());
    ::unsetenv("FERRY_TEST_MARKER");
  }
  bool exists() const { return ::access(path_.c_str(), F_OK) == 0; }

 private:
  std::string path_;
};

}  // namespace

TEST(WorkerLoop, VerifiedTaskLoadsAModuleThatWasNeverAllowed) {
  const std::string task = marker_task(1);
  MarkerFile marker;
  forked_worker w;
  w.send(wire_bytes(&w.auth(), protocol::kind::task, 1, task));
  EXPECT_EQ(w.result(), 101);
  EXPECT_TRUE(marker.exists()) << "the vouched module did not run";
}

TEST(WorkerLoop, UnsignedTaskNamingAModuleNeverRunsIt) {
  const std::string task = marker_task(1);
  MarkerFile marker;
  forked_worker w;
  w.send(wire_bytes(nullptr, protocol::kind::task, 1, task));
  expect_refused(w);
  EXPECT_FALSE(marker.exists()) << "an unauthenticated task loaded its module";
}

TEST(WorkerLoop, ForgedTaskNamingAModuleNeverRunsIt) {
  const std::string task = marker_task(1);
  MarkerFile marker;
  forked_worker w;
  channel_auth other(std::string(protocol::key_size, 'o'), channel_auth::side::pool);
  w.send(wire_bytes(&other, protocol::kind::task, 1, task));
  expect_refused(w);
  EXPECT_FALSE(marker.exists()) << "a forged task loaded its module";
}
