// Copyright ferry authors.
//
// Workers' stdout and stderr captured (pool_options::worker_output,
// on_output): line by line, each with its worker and task, never mixed
// with another worker's, and what a dying worker wrote arrives. Run once
// per start method.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

using ferry_test::expect_error;
using ferry_test::get_within;
using WorkerOutput = ferry_test::ExecutorTest;

namespace {

struct line {
  int worker;
  int stream;
  std::uint64_t task;
  std::string name;
  std::string text;
};

// A pool whose workers' lines are kept here.
class captured {
 public:
  ferry::pool_options options(std::size_t workers) {
    ferry::pool_options o = ferry_test::options(workers);
    o.on_output = [this](const ferry::output_line& l) {
      std::lock_guard lock(mu_);
      lines_.push_back({l.worker, l.stream, l.task, std::string(l.name), std::string(l.text)});
    };
    return o;
  }
  std::vector<line> lines() {
    std::lock_guard lock(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::vector<line> lines_;
};

}  // namespace

TEST_F(WorkerOutput, LinesReachOnOutputWithTheirWorkerStreamAndTask) {
  captured seen;
  ferry::process_pool pool(seen.options(1));
  auto hello = pool.submit(test_tasks::print(), std::string("hello\nworld"), 1);
  const int pid = get_within(hello);
  auto oops = pool.submit({.name = "complainer"}, test_tasks::print(), std::string("oops"), 2);
  get_within(oops);
  // Lines are handed out before the task's result: they are all here now.
  const std::vector<line> lines = seen.lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text, "hello");
  EXPECT_EQ(lines[1].text, "world");
  EXPECT_EQ(lines[0].stream, 1);
  EXPECT_EQ(lines[0].worker, pid);
  EXPECT_NE(lines[0].task, 0u);
  EXPECT_EQ(lines[1].task, lines[0].task);
  EXPECT_EQ(lines[2].text, "oops");
  EXPECT_EQ(lines[2].stream, 2);
  EXPECT_EQ(lines[2].name, "complainer");
  EXPECT_NE(lines[2].task, lines[0].task);
}

TEST_F(WorkerOutput, LinesOfManyWorkersArriveWholeAndNeverMixed) {
  captured seen;
  ferry::process_pool pool(seen.options(4));
  constexpr int tasks = 40, per_task = 50;
  std::vector<ferry::future<int>> futures;
  for (int t = 0; t < tasks; ++t) {
    std::string text;
    for (int l = 0; l < per_task; ++l)
      text += "task " + std::to_string(t) + " line " + std::to_string(l) + " " + std::string(300, 'x') + "\n";
    text.pop_back();
    futures.push_back(pool.submit(test_tasks::print(), text, 1));
  }
  for (auto& f : futures) get_within(f);
  const std::vector<line> lines = seen.lines();
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(tasks * per_task));
  const std::regex whole("task ([0-9]+) line ([0-9]+) x{300}");
  std::map<std::uint64_t, int> next_line_of_task;
  for (const line& l : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l.text, m, whole)) << "a torn or mixed line: " << l.text.substr(0, 80);
    EXPECT_EQ(std::stoi(m[2]), next_line_of_task[l.task]++) << "out of order within task " << l.task;
  }
  EXPECT_EQ(next_line_of_task.size(), static_cast<std::size_t>(tasks));
}

TEST_F(WorkerOutput, WhatADyingWorkerWroteArrivesAsItsTasks) {
  captured seen;
  ferry::process_pool pool(seen.options(1));
  auto dying = pool.submit(test_tasks::print(), std::string("last words"), 3);
  expect_error<ferry::worker_died_error>([&] { get_within(dying); });
  // The worker's death is handled, its pipe drained, before the future fails.
  const std::vector<line> lines = seen.lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "last words");
  EXPECT_NE(lines[0].task, 0u);
  // A line left without its newline arrives once its worker is gone.
  ferry::pool_options o = seen.options(1);
  o.max_tasks_per_worker = 1;
  ferry::process_pool recycling(o);
  auto partial = recycling.submit(test_tasks::print(), std::string("no newline"), 4);
  get_within(partial);
  recycling.shutdown();
  bool found = false;
  for (const line& l : seen.lines()) found = found || l.text == "no newline";
  EXPECT_TRUE(found);
}

TEST_F(WorkerOutput, PrefixModeWritesEachLineToThePoolsOwnStreamAfterItsWorkerAndTask) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_NONBLOCK), 0);
  std::fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  ASSERT_GE(dup2(fds[1], STDOUT_FILENO), 0);
  int pid = 0;
  {
    ferry::pool_options o = ferry_test::options(1);
    o.worker_output = ferry::output_mode::prefix;
    ferry::process_pool pool(o);
    auto hello = pool.submit({.name = "greeter"}, test_tasks::print(), std::string("hello"), 1);
    pid = get_within(hello);
  }
  dup2(saved, STDOUT_FILENO);
  close(saved);
  close(fds[1]);
  char buf[4096];
  const ssize_t n = read(fds[0], buf, sizeof buf);
  close(fds[0]);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(n)),
            "[worker " + std::to_string(pid) + " task 'greeter'] hello\n");
}
