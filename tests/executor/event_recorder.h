// Copyright ferry authors.
//
// A pool_observer that keeps every event it is told (with copies of their
// strings), for the events tests of both pools, and the checks they share.
#ifndef FERRY_TESTS_EXECUTOR_EVENT_RECORDER_H_
#define FERRY_TESTS_EXECUTOR_EVENT_RECORDER_H_

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <executor/executor.h>

#include "test_tasks.h"

namespace ferry_test {

struct recorded_task {
  ferry::task_event::kind what;
  std::uint64_t task;
  std::uint32_t items;
  std::string name;
  int worker;
  std::string host;
  std::chrono::nanoseconds duration;
  bool threw;
  std::string error;
};

struct recorded_worker {
  ferry::worker_event::kind what;
  int pid;
  std::string host;
  std::string why;
};

class event_recorder : public ferry::pool_observer {
 public:
  void on_task(const ferry::task_event& e) override {
    std::lock_guard lock(mu_);
    tasks_.push_back({e.what, e.task, e.items, std::string(e.name), e.worker, std::string(e.host), e.duration,
                      e.threw, std::string(e.error)});
    cv_.notify_all();
  }
  void on_worker(const ferry::worker_event& e) override {
    std::lock_guard lock(mu_);
    workers_.push_back({e.what, e.pid, std::string(e.host), std::string(e.why)});
    cv_.notify_all();
  }
  std::vector<recorded_task> tasks() const {
    std::lock_guard lock(mu_);
    return tasks_;
  }
  std::vector<recorded_worker> workers() const {
    std::lock_guard lock(mu_);
    return workers_;
  }
  // Waits up to 10 s until pred(tasks, workers) holds; whether it did.
  bool wait_for(const std::function<bool(const std::vector<recorded_task>&,
                                         const std::vector<recorded_worker>&)>& pred) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return pred(tasks_, workers_); });
  }
  // The events of one task, in the order told.
  std::vector<recorded_task> of(std::uint64_t task) const {
    std::vector<recorded_task> out;
    for (const recorded_task& t : tasks())
      if (t.task == task) out.push_back(t);
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<recorded_task> tasks_;
  std::vector<recorded_worker> workers_;
};

inline int count(const std::vector<recorded_task>& events, ferry::task_event::kind what) {
  int n = 0;
  for (const auto& e : events) n += e.what == what;
  return n;
}

// A task that sleeps: submitted, started and finished, in that order, each
// once, with its worker's pid and how long it ran; a map's chunks each
// told with their inputs. `remote`: an MPI pool (the host is named, the
// worker is not known at rank 0).
template <class Pool>
void expect_a_tasks_life_told_in_order(Pool& pool, event_recorder& seen, bool remote) {
  using kind = ferry::task_event::kind;
  auto f = pool.submit(test_tasks::sleep_ms(), 100);
  const int pid = f.get();
  ASSERT_TRUE(seen.wait_for([](const auto& t, const auto&) { return count(t, kind::finished) >= 1; }));
  const std::vector<recorded_task> all = seen.tasks();
  ASSERT_FALSE(all.empty());
  const std::vector<recorded_task> life = seen.of(all.front().task);
  ASSERT_EQ(life.size(), 3u);
  EXPECT_EQ(life[0].what, kind::submitted);
  EXPECT_EQ(life[1].what, kind::started);
  EXPECT_EQ(life[2].what, kind::finished);
  EXPECT_FALSE(life[2].threw);
  EXPECT_GE(life[2].duration, std::chrono::milliseconds(90));
  if (remote) {
    EXPECT_FALSE(life[1].host.empty());
    EXPECT_EQ(life[2].host, life[1].host);
  } else {
    EXPECT_EQ(life[1].worker, pid);
    EXPECT_EQ(life[2].worker, pid);
    EXPECT_TRUE(life[2].host.empty());
  }
  const std::size_t before = seen.tasks().size();
  std::vector<int> inputs(30, 1);
  pool.map(test_tasks::scale(2), inputs, 10);
  ASSERT_TRUE(seen.wait_for([&](const auto& t, const auto&) { return t.size() >= before + 9; }));
  int chunks = 0;
  const std::vector<recorded_task> after = seen.tasks();
  for (std::size_t i = before; i < after.size(); ++i) {
    const recorded_task& e = after[i];
    if (e.what == kind::submitted) {
      ++chunks;
      EXPECT_EQ(e.items, 10u);
    }
  }
  EXPECT_EQ(chunks, 3);
}

// A task that throws is finished, with threw set; one whose worker dies is
// failed, saying how.
template <class Pool>
void expect_exceptions_finished_and_deaths_failed(Pool& pool, event_recorder& seen) {
  using kind = ferry::task_event::kind;
  const std::size_t before = seen.tasks().size();
  auto thrown = pool.submit(test_tasks::throw_std(), std::string("runtime_error"));
  EXPECT_THROW(thrown.get(), std::runtime_error);
  auto died = pool.submit(test_tasks::crash(), std::string("segv"));
  EXPECT_THROW(died.get(), ferry::worker_died_error);
  ASSERT_TRUE(seen.wait_for([&](const auto& t, const auto&) {
    const std::vector<recorded_task> since(t.begin() + static_cast<std::ptrdiff_t>(before), t.end());
    return count(since, kind::finished) >= 1 && count(since, kind::failed) >= 1;
  }));
  const std::vector<recorded_task> all = seen.tasks();
  for (const recorded_task& e :
       std::vector<recorded_task>(all.begin() + static_cast<std::ptrdiff_t>(before), all.end())) {
    if (e.what == kind::finished) {
      EXPECT_TRUE(e.threw);
    }
    if (e.what == kind::failed) {
      EXPECT_NE(e.error.find("signal 11"), std::string::npos) << e.error;
    }
  }
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_EVENT_RECORDER_H_
