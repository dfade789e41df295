// Copyright ferry authors.
//
// Programs that a task runs (exec, system(), popen, posix_spawn) do not
// inherit the worker's channel to the pool, like Python since PEP 446; a
// worker whose channel closes while its process lives on is killed, and its
// task fails with ferry::worker_died_error saying so. Once per start method.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

using ferry_test::get_within;
using ChildProcess = ferry_test::ExecutorTest;

namespace {

// The last line of text, and the text before it.
std::pair<std::string, std::string> split_last_line(const std::string& text) {
  const std::size_t at = text.rfind('\n');
  if (at == std::string::npos) return {"", text};
  return {text.substr(0, at), text.substr(at + 1)};
}

}  // namespace

TEST_F(ChildProcess, TaskThatExecsAnotherProgramFailsAndThePoolGoesOn) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::exec_program(), std::string("/bin/sleep"));
  auto e = ferry_test::expect_error<ferry::worker_died_error>([&] { get_within(f); });
  ferry_test::expect_message(e, "closed its connection to the pool while its process lived on");
  ferry_test::expect_pool_serves(pool);
}

TEST_F(ChildProcess, ShellStartedByATaskDoesNotHoldTheChannel) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::shell_descriptors());
  const auto [descriptors, sockets] = split_last_line(get_within(f));
  std::istringstream each(sockets);
  int count = 0;
  for (std::string socket; each >> socket; ++count) {
    ASSERT_TRUE(socket.starts_with("socket:")) << socket;
    EXPECT_EQ(descriptors.find(socket), std::string::npos)
        << "the shell inherited the worker's channel " << socket << ":\n" << descriptors;
  }
  EXPECT_EQ(count, 2) << "the worker's two sockets: " << sockets;
  ferry_test::expect_pool_serves(pool);
}

TEST_F(ChildProcess, GrandchildOutlivingItsTaskDoesNotHoldTheChannel) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::spawn_lingering());
  std::istringstream reply(get_within(f));
  int grandchild = 0;
  std::vector<std::string> sockets;
  reply >> grandchild;
  for (std::string socket; reply >> socket;) sockets.push_back(socket);
  ASSERT_GT(grandchild, 0);
  ASSERT_EQ(sockets.size(), 2u) << "the worker's two sockets";
  for (const std::string& socket : sockets) ASSERT_TRUE(socket.starts_with("socket:")) << socket;
  std::string held;
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(grandchild) + "/fd", ec)) {
    std::error_code link_ec;
    const std::string target = std::filesystem::read_symlink(fd.path(), link_ec).string();
    if (std::find(sockets.begin(), sockets.end(), target) != sockets.end()) held = fd.path().string();
  }
  // The worker goes on serving while its grandchild lives, and the pool
  // shuts down without waiting for it.
  ferry_test::expect_pool_serves(pool);
  pool.shutdown({});
  ::kill(grandchild, SIGKILL);  // not ours to reap: its parent, the worker, is gone
  EXPECT_TRUE(ec.value() == 0) << "cannot read the grandchild's descriptors: " << ec.message();
  EXPECT_EQ(held, "") << "the grandchild holds the worker's channel as " << held;
}

