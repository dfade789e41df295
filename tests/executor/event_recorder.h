// Copyright ferry authors.
//
// A pool_observer that keeps every event it is told (with copies of their
// strings), for the events tests of both pools, and the checks they share.
#ifndef FERRY_TESTS_EXECUTOR_EVENT_RECORDER_H_
#define FERRY_TESTS_EXECUTOR_EVENT_RECORDER_H_

#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <regex>
#include <stdexcept>
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
  std::uint32_t items_threw;
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
                      e.threw, e.items_threw, std::string(e.error)});
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

// A pool's trace (pool_options::trace) in the test's temporary directory:
// read once the pool has shut down; removed, with its page and its
// directory, at the end.
// An observer that throws from every call, counting the tasks' events:
// the pool must drop what it throws and go on.
struct throwing_observer : ferry::pool_observer {
  std::atomic<int> calls{0};
  void on_task(const ferry::task_event&) override {
    ++calls;
    throw std::runtime_error("observer full");
  }
  void on_worker(const ferry::worker_event&) override { throw std::logic_error("worker events unwanted"); }
};

class trace_file {
 public:
  // In a directory of its own, not there yet: the pool makes it.
  explicit trace_file(const std::string& name)
      : dir_(::testing::TempDir() + "/" + name + "_" + std::to_string(::getpid())), path_(dir_ + "/trace.json") {
    std::filesystem::remove_all(dir_);
  }
  ~trace_file() { std::filesystem::remove_all(dir_); }
  trace_file(const trace_file&) = delete;
  trace_file& operator=(const trace_file&) = delete;
  const std::string& path() const { return path_; }
  std::string read() const {
    std::ifstream in(path_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  std::string dir_;
  std::string path_;
};

// A map's chunk finishes once, told as threw only when at least one of its
// inputs threw, with how many did: at chunk sizes 1, 3 and the automatic
// one, each map of six inputs with no input throwing and with the fifth
// throwing. The pool's trace, when it is written, must show the same; see
// expect_chunk_spans_as_told.
template <class Pool>
void expect_chunks_told_as_throwing_only_when_an_input_threw(Pool& pool, event_recorder& seen) {
  using kind = ferry::task_event::kind;
  for (const std::size_t chunksize : {std::size_t{1}, std::size_t{3}, std::size_t{0}}) {
    for (const bool one_throws : {false, true}) {
      SCOPED_TRACE("chunksize " + std::to_string(chunksize) + (one_throws ? ", the fifth input throws" : ""));
      std::vector<std::string> inputs(6, "no error");
      if (one_throws) inputs[4] = "runtime_error";
      const std::size_t before = seen.tasks().size();
      int thrown = 0, values = 0;
      auto results = pool.map_ordered(test_tasks::throw_std(), inputs, ferry::map_options{.chunksize = chunksize});
      for (auto it = results.begin(); it != results.end(); ++it) {
        try {
          EXPECT_EQ(*it, 0);
          ++values;
        } catch (const std::runtime_error&) {
          ++thrown;
        }
      }
      EXPECT_EQ(values, one_throws ? 5 : 6);
      EXPECT_EQ(thrown, one_throws ? 1 : 0);
      // Every chunk's finished event, until they account for the six inputs.
      auto finished_since = [before](const std::vector<recorded_task>& t) {
        std::vector<recorded_task> out;
        for (std::size_t i = before; i < t.size(); ++i)
          if (t[i].what == kind::finished) out.push_back(t[i]);
        return out;
      };
      auto inputs_finished = [&](const std::vector<recorded_task>& t) {
        std::uint32_t n = 0;
        for (const recorded_task& e : finished_since(t)) n += e.items;
        return n;
      };
      ASSERT_TRUE(seen.wait_for([&](const auto& t, const auto&) { return inputs_finished(t) >= 6; }));
      const std::vector<recorded_task> chunks = finished_since(seen.tasks());
      int chunks_threw = 0;
      std::uint32_t items_threw = 0;
      for (const recorded_task& e : chunks) {
        EXPECT_EQ(e.threw, e.items_threw != 0) << "chunk of " << e.items;
        EXPECT_LE(e.items_threw, e.items);
        chunks_threw += e.threw ? 1 : 0;
        items_threw += e.items_threw;
      }
      EXPECT_EQ(inputs_finished(seen.tasks()), 6u);
      EXPECT_EQ(chunks_threw, one_throws ? 1 : 0);
      EXPECT_EQ(items_threw, one_throws ? 1u : 0u);
      if (chunksize == 3) {
        ASSERT_EQ(chunks.size(), 2u);
        EXPECT_EQ(chunks[0].items, 3u);
        EXPECT_EQ(chunks[1].items, 3u);
      }
      if (chunksize == 1) {
        EXPECT_EQ(chunks.size(), 6u);
      }
    }
  }
}

// The spans of a trace whose pool ran only
// expect_chunks_told_as_throwing_only_when_an_input_threw: six maps of six
// inputs, three of them with one input that threw. Each span's "threw"
// counts its inputs that threw, and its status is "threw" exactly when
// that count is not 0.
inline void expect_chunk_spans_as_told(const std::string& json) {
  std::size_t spans = 0, inputs = 0, inputs_threw = 0, spans_threw = 0;
  static const std::regex span(R"re("args":\{"items":(\d+),"threw":(\d+),"status":"(\w+)")re");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), span); it != std::sregex_iterator(); ++it) {
    const std::size_t items = std::stoul((*it)[1]), threw = std::stoul((*it)[2]);
    const std::string status = (*it)[3];
    ++spans;
    inputs += items;
    inputs_threw += threw;
    spans_threw += threw != 0 ? 1 : 0;
    EXPECT_EQ(status, threw != 0 ? "threw" : "ok") << it->str();
  }
  EXPECT_EQ(inputs, 36u) << json;
  EXPECT_EQ(inputs_threw, 3u) << json;
  EXPECT_EQ(spans_threw, 3u) << json;
  EXPECT_GE(spans, 6u + 2u + 2u) << "chunks of 1 and of 3, and at least one for each automatic map";
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_EVENT_RECORDER_H_
