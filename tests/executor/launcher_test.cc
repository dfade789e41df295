// Copyright ferry authors.
//
// src/executor/pool/launcher.cc: starting one worker per start method. A
// launched worker is checked from outside, as the kernel shows it: its
// environment at exec (/proc/PID/environ), its descriptors, its exit. It
// is sent no hello: closing the pool's end ends it with worker_loop's
// protocol error, which is how each case here ends it.
#include "executor/pool/launcher.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "executor/wire/protocol.h"
#include "../temp_dir.h"
#include "out_of_descriptors.h"

namespace {

namespace protocol = ferry::detail::protocol;
using ferry::detail::launch_worker;
using ferry::detail::launched_worker;

bool readable_within(int fd, int ms) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  return ::poll(&p, 1, ms) == 1;
}

// The environment `pid` was started with, one "NAME=value" per entry.
std::vector<std::string> environment_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t end = all.find('\0', at);
    out.push_back(all.substr(at, end - at));
    at = end == std::string::npos ? all.size() : end + 1;
  }
  return out;
}

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

bool names(const std::vector<std::string>& env, const std::string& name) {
  return std::any_of(env.begin(), env.end(), [&](const std::string& e) { return e.starts_with(name + "="); });
}

// Ends the worker by closing the pool's ends; its wait status.
int end_worker(launched_worker& w) {
  w.tasks.reset();
  w.results.reset();
  EXPECT_TRUE(readable_within(w.pidfd.get(), 10000)) << "the exit descriptor never became readable";
  int status = 0;
  EXPECT_EQ(::waitpid(w.pid, &status, 0), w.pid);
  return status;
}

TEST(Launcher, AnUnsetPatternNamesAVariableOrEveryNameWithItsPrefix) {
  const std::vector<std::string> unset{"OMPI_*", "HOME"};
  EXPECT_TRUE(ferry::detail::is_unset("OMPI_COMM_WORLD_RANK=0", unset));
  EXPECT_TRUE(ferry::detail::is_unset("HOME=/root", unset));
  EXPECT_FALSE(ferry::detail::is_unset("HOMEDIR=/root", unset));
  EXPECT_FALSE(ferry::detail::is_unset("PATH=/bin", unset));
  EXPECT_FALSE(ferry::detail::is_unset("OMP_NUM_THREADS=2", unset));
}

TEST(Launcher, TheWorkerProgramNamedByFerryWorkerComesFirst) {
  ::setenv("FERRY_WORKER", "/opt/elsewhere/ferry-worker", 1);
  EXPECT_EQ(ferry::detail::default_worker_program(), "/opt/elsewhere/ferry-worker");
  ::unsetenv("FERRY_WORKER");
}

TEST(Launcher, AStartOutOfDescriptorsSaysWhichLimitToRaiseAndMayPass) {
  SKIP_WITHOUT_FREE_DESCRIPTORS();
  std::string what;
  bool lasting = true;
  {
    ferry_test::no_free_descriptor guard;
    try {
      launched_worker w = launch_worker(ferry::start_method::plugin, FERRY_TEST_WORKER_PROGRAM, {}, {});
      end_worker(w);
    } catch (const ferry::detail::launch_error& e) {
      what = e.what();
      lasting = e.lasting();
    }
  }
  ASSERT_FALSE(what.empty()) << "a worker started with no descriptor to spare";
  EXPECT_FALSE(lasting) << "descriptors may be closed meanwhile: a later start may pass";
  EXPECT_NE(what.find("Too many open files"), std::string::npos) << what;
  EXPECT_NE(what.find("RLIMIT_NOFILE"), std::string::npos) << what;
  EXPECT_NE(what.find("ulimit -n"), std::string::npos) << what;
}

TEST(Launcher, AWorkerProgramThatIsMissingIsALastingErrorNamingIt) {
  try {
    launch_worker(ferry::start_method::plugin, "/nonexistent/ferry-worker", {}, {});
    ADD_FAILURE() << "a missing program was started";
  } catch (const ferry::detail::launch_error& e) {
    EXPECT_TRUE(e.lasting()) << "trying again cannot help";
    EXPECT_NE(std::string(e.what()).find("/nonexistent/ferry-worker"), std::string::npos) << e.what();
  }
}

TEST(Launcher, APluginWorkerStartsWithThePoolsEnvironmentChangedAsAskedAndItsSocket) {
  ::setenv("FERRY_TEST_GONE_A", "1", 1);
  ::setenv("FERRY_TEST_KEPT", "1", 1);
  const ferry::detail::worker_environment env{.unset = {"FERRY_TEST_GONE_*"}, .set = {{"FERRY_TEST_SET", "yes"}}};
  launched_worker w = launch_worker(ferry::start_method::plugin, FERRY_TEST_WORKER_PROGRAM, env, {});
  ::unsetenv("FERRY_TEST_GONE_A");
  ::unsetenv("FERRY_TEST_KEPT");
  ASSERT_GT(w.pid, 0);
  ASSERT_TRUE(w.tasks && w.results && w.pidfd);
  for (const ferry::detail::unique_fd* end : {&w.tasks, &w.results}) {
    EXPECT_NE(::fcntl(end->get(), F_GETFL) & O_NONBLOCK, 0) << "a pool's end blocks";
    EXPECT_NE(::fcntl(end->get(), F_GETFD) & FD_CLOEXEC, 0) << "a pool's end leaks into programs it runs";
  }
  std::vector<std::string> seen;
  for (int i = 0; i < 500 && !names(seen, protocol::worker_fd_variable); ++i) {
    seen = environment_of(w.pid);  // until the exec is done
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(has(seen, "FERRY_TEST_SET=yes"));
  EXPECT_TRUE(has(seen, "FERRY_TEST_KEPT=1"));
  EXPECT_FALSE(names(seen, "FERRY_TEST_GONE_A"));
  std::string parent = protocol::parent_pid_variable;
  parent.append("=").append(std::to_string(::getpid()));
  EXPECT_TRUE(has(seen, parent));
  EXPECT_TRUE(names(seen, protocol::worker_fd_variable));
  EXPECT_TRUE(names(seen, protocol::results_fd_variable));
  const int status = end_worker(w);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == protocol::protocol_error_status) << status;
}

TEST(Launcher, CapturedOutputComesThroughPipesThatEndWithTheWorker) {
  launched_worker w = launch_worker(ferry::start_method::plugin, FERRY_TEST_WORKER_PROGRAM, {}, {}, true);
  ASSERT_TRUE(w.out && w.err);
  end_worker(w);
  for (const int fd : {w.out.get(), w.err.get()}) {
    ASSERT_TRUE(readable_within(fd, 10000));
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) {
    }
    EXPECT_EQ(n, 0) << "the pipe did not end with the worker";
  }
}

TEST(Launcher, AForkedWorkerServesOnItsSocketAndClosesWhatThePoolNames) {
  int extra[2];
  ASSERT_EQ(::pipe2(extra, O_CLOEXEC), 0);
  launched_worker w = launch_worker(ferry::start_method::fork, "", {}, {extra[1]});
  ASSERT_GT(w.pid, 0);
  ::close(extra[1]);
  // The child closed its copy of the write end: the read end ends now,
  // though the child still runs.
  EXPECT_TRUE(readable_within(extra[0], 10000));
  char c;
  EXPECT_EQ(::read(extra[0], &c, 1), 0);
  ::close(extra[0]);
  const int status = end_worker(w);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == protocol::protocol_error_status) << status;
}

TEST(Launcher, AWorkerStartsInTheDirectoryItIsGivenAndWithNullInputWhereverThePoolIs) {
  const std::filesystem::path before = std::filesystem::current_path();
  ferry_test::temp_dir given, elsewhere;
  ferry::detail::unique_fd dir(::open(given.path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(dir);
  std::filesystem::current_path(elsewhere.path());
  for (const auto method : {ferry::start_method::plugin, ferry::start_method::fork}) {
    ferry::detail::worker_environment env;
    env.directory = dir.get();
    launched_worker w = launch_worker(method, FERRY_TEST_WORKER_PROGRAM, env, {dir.get()});
    std::error_code ec;
    const std::string proc = "/proc/" + std::to_string(w.pid);
    const std::filesystem::path expected = std::filesystem::canonical(given.path());
    std::filesystem::path cwd, in;
    for (int i = 0; i < 500 && (cwd != expected || in != "/dev/null"); ++i) {  // a forked child gets there itself
      cwd = std::filesystem::read_symlink(proc + "/cwd", ec);
      in = std::filesystem::read_symlink(proc + "/fd/0", ec);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(cwd, expected) << static_cast<int>(method);
    EXPECT_EQ(in, "/dev/null") << static_cast<int>(method);
    const int status = end_worker(w);
    EXPECT_TRUE(WIFEXITED(status)) << status;
  }
  std::filesystem::current_path(before);
}

TEST(Launcher, AnInProcessWorkerIsAThreadWhoseEndIsItsExitDescriptor) {
  launched_worker w = launch_worker(ferry::start_method::in_process, "", {}, {});
  ASSERT_NE(w.thread, nullptr);
  EXPECT_EQ(w.pid, w.thread->tid());
  w.tasks.reset();
  w.results.reset();
  EXPECT_TRUE(readable_within(w.pidfd.get(), 10000));
  const int status = w.thread->join();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == protocol::protocol_error_status) << status;
}

}  // namespace
