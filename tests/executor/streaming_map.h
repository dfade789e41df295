// Copyright ferry authors.
//
// Maps that stream, for the process pool's and the MPI pool's tests alike
// (both take their map from pool_front): map_unordered, single-pass inputs,
// the window's bound on what is read ahead, an input that throws, a loop
// left early, and the automatic chunk size. Each check takes a pool with at
// least one worker.
#ifndef FERRY_TESTS_EXECUTOR_STREAMING_MAP_H_
#define FERRY_TESTS_EXECUTOR_STREAMING_MAP_H_

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstddef>
#include <iterator>
#include <ranges>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "test_tasks.h"

namespace ferry_test {

// An input read once, as a generator or a file reader is: its iterator is
// single-pass, counts what was read, may end after `limit` inputs (never
// when negative) and may throw std::runtime_error("input line N is bad")
// instead of reading input N. Each input is `value`, or its index when
// `value` is negative.
struct counting_input {
  long limit = -1;
  long throw_at = -1;
  int value = -1;
  long reads = 0;

  struct iterator {
    using iterator_concept = std::input_iterator_tag;
    using value_type = int;
    using difference_type = std::ptrdiff_t;
    counting_input* in = nullptr;
    long at = 0;
    int operator*() const {
      if (at == in->throw_at) throw std::runtime_error("input line " + std::to_string(at) + " is bad");
      return in->value >= 0 ? in->value : static_cast<int>(at);
    }
    iterator& operator++() {
      ++at;
      ++in->reads;
      return *this;
    }
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const { return in->limit >= 0 && at >= in->limit; }
  };
  iterator begin() { return {this, 0}; }
  std::default_sentinel_t end() { return {}; }
};
static_assert(std::ranges::input_range<counting_input> && !std::ranges::forward_range<counting_input>);

template <class Pool>
void expect_unordered_results_with_their_indexes(Pool& pool) {
  // The first input sleeps long: the others come out before it.
  std::vector<int> inputs = {1500, 1, 1, 1};
  std::vector<int> order;
  std::set<std::size_t> seen;
  for (auto [index, pid] : pool.map_unordered(test_tasks::sleep_ms(), inputs, 1)) {
    EXPECT_GT(pid, 0);
    EXPECT_TRUE(seen.insert(index).second) << "index " << index << " twice";
    order.push_back(static_cast<int>(index));
  }
  EXPECT_EQ(seen, (std::set<std::size_t>{0, 1, 2, 3}));
  ASSERT_EQ(order.size(), 4u);
  EXPECT_NE(order.front(), 0) << "the slow input came first";
  // Values belong to their indexes, whatever the chunk size.
  std::vector<int> many(300);
  for (int i = 0; i < 300; ++i) many[i] = i;
  for (std::size_t chunk : {1u, 7u, 0u}) {
    std::vector<int> out(300, -1);
    for (const auto& r : pool.map_unordered(test_tasks::scale(3), many, chunk)) out[r.index] = r.value;
    for (int i = 0; i < 300; ++i) ASSERT_EQ(out[i], 3 * i) << "chunksize " << chunk;
  }
}

template <class Pool>
void expect_single_pass_inputs_mapped(Pool& pool) {
  std::istringstream text("1 2 3 4 5 6 7 8 9 10");
  EXPECT_EQ(pool.map(test_tasks::scale(2), std::views::istream<int>(text)),
            (std::vector<int>{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}));
  counting_input in{.limit = 1000};
  std::size_t next = 0;
  for (int r : pool.map_ordered(test_tasks::scale(1), in, ferry::map_options{.chunksize = 16})) {
    ASSERT_EQ(r, static_cast<int>(next));
    ++next;
  }
  EXPECT_EQ(next, 1000u);
  EXPECT_EQ(in.reads, 1000);
  std::size_t count = 0;
  for (const auto& r : pool.map_unordered(test_tasks::scale(1), counting_input{.limit = 500})) {
    EXPECT_EQ(r.value, static_cast<int>(r.index));
    ++count;
  }
  EXPECT_EQ(count, 500u);
  EXPECT_TRUE(pool.map(test_tasks::scale(1), std::vector<int>{}).empty());
}

// The parent holds at most max_chunks_in_flight chunks beyond the one being
// read, however long the input: reading 20 000 inputs of an endless one.
template <class Pool>
void expect_reading_no_further_ahead_than_the_window(Pool& pool) {
  const ferry::map_options window{.chunksize = 8, .max_chunks_in_flight = 4};
  for (bool in_order : {true, false}) {
    counting_input in;  // endless
    long consumed = 0;
    long most_ahead = 0;
    auto check = [&] {
      ++consumed;
      most_ahead = std::max(most_ahead, in.reads - consumed);
      return consumed == 20000;
    };
    if (in_order) {
      for (int r : pool.map_ordered(test_tasks::scale(1), in, window)) {
        ASSERT_EQ(r, consumed);
        if (check()) break;
      }
    } else {
      for (const auto& r : pool.map_unordered(test_tasks::scale(1), in, window)) {
        ASSERT_EQ(r.value, static_cast<int>(r.index));
        if (check()) break;
      }
    }
    EXPECT_EQ(consumed, 20000);
    EXPECT_LE(most_ahead, (4 + 1) * 8) << (in_order ? "map_ordered" : "map_unordered");
  }
}

// An input that throws: its exception comes out of the map as it was
// thrown, and what was queued behind is cancelled, so that the pool's one
// worker is soon free. Tasks sleep `ms` each; one worker.
template <class Pool>
void expect_an_input_error_out_unchanged_and_the_queue_cancelled(Pool& pool, int ms) {
  using clock = std::chrono::steady_clock;
  counting_input in{.throw_at = 5, .value = ms};
  const ferry::map_options window{.chunksize = 1, .max_chunks_in_flight = 4};
  try {
    pool.map(test_tasks::sleep_ms(), in, window);
    ADD_FAILURE() << "the input's exception did not come out of map";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "input line 5 is bad");
  }
  // Behind the running task at most one more (pipelined) runs; three more
  // would have run had they not been cancelled.
  const auto start = clock::now();
  EXPECT_GT(pool.submit(test_tasks::pid()).get(), 0);
  EXPECT_LT(clock::now() - start, std::chrono::milliseconds(ms * 5 / 2));
}

// A chunk that failed as a whole (here its worker died) throws at each of
// its items, as a task's own exception does, and the iteration goes on past
// it, in input order or not. It threw from ++ instead, and the iterator
// then read past the items it had: the caller died of SIGSEGV. And when ++
// throws because the map has ended (the input threw), the iterator is at
// the end. Tasks `crash` ("exit3" exits its worker) and `scale`.
template <class Pool>
void expect_a_dead_chunk_to_throw_at_its_items_and_the_iteration_to_go_on(Pool& pool) {
  const std::vector<std::string> inputs{"ok", "ok", "exit3", "ok", "ok", "ok"};
  std::vector<std::string> seen;
  auto in_order = pool.map_ordered(test_tasks::crash(), inputs, 2);  // the third chunk of two dies
  for (auto it = in_order.begin(); it != in_order.end(); ++it) {
    try {
      seen.push_back(std::to_string(*it));
    } catch (const ferry::worker_died_error& e) {
      seen.push_back("died");
      EXPECT_NE(std::string(e.what()).find("exited with code 3"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"0", "0", "died", "died", "0", "0"}));

  std::set<std::size_t> finished;
  int died = 0;
  auto any_order = pool.map_unordered(test_tasks::crash(), inputs, 1);
  for (auto it = any_order.begin(); it != any_order.end(); ++it) {
    try {
      finished.insert((*it).index);
    } catch (const ferry::worker_died_error&) {
      ++died;
    }
  }
  EXPECT_EQ(died, 1);
  EXPECT_EQ(finished, (std::set<std::size_t>{0, 1, 3, 4, 5}));

  // map itself: the first failure in input order, as before.
  try {
    pool.map(test_tasks::crash(), inputs, 1);
    ADD_FAILURE() << "map of a dying input threw nothing";
  } catch (const ferry::worker_died_error&) {
  }

  counting_input broken{.limit = 10, .throw_at = 3};
  auto read_on = pool.map_ordered(test_tasks::scale(2), broken,
                                  ferry::map_options{.chunksize = 1, .max_chunks_in_flight = 1});
  std::vector<int> doubled;
  bool input_threw = false;
  for (auto it = read_on.begin(); it != read_on.end();) {
    doubled.push_back(*it);
    try {
      ++it;
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "input line 3 is bad");
      input_threw = true;
      EXPECT_TRUE(it == read_on.end()) << "the iterator after the map ended";
    }
  }
  EXPECT_TRUE(input_threw);
  EXPECT_EQ(doubled, (std::vector<int>{0, 2, 4}));
}

// Leaving the loop early cancels the rest. Tasks sleep `ms` each; one worker.
template <class Pool>
void expect_leaving_the_loop_early_cancels_the_rest(Pool& pool, int ms) {
  using clock = std::chrono::steady_clock;
  counting_input in{.value = ms};  // endless
  for (int pid : pool.map_ordered(test_tasks::sleep_ms(), in, ferry::map_options{.chunksize = 1,
                                                                                 .max_chunks_in_flight = 4})) {
    EXPECT_GT(pid, 0);
    break;
  }
  EXPECT_LE(in.reads, 6);
  const auto start = clock::now();
  EXPECT_GT(pool.submit(test_tasks::pid()).get(), 0);
  EXPECT_LT(clock::now() - start, std::chrono::milliseconds(ms * 5 / 2));
}

// With map_options::stop_running, a map that ends early also stops the
// chunks its workers run: one that looks (this_task) at once, one that
// sleeps after the grace; the workers are then free within seconds, not
// the chunks' 20 s.
template <class Pool>
void expect_an_early_end_to_stop_running_chunks(Pool& pool) {
  using clock = std::chrono::steady_clock;
  const std::vector<int> inputs(4, 20'000);
  for (const auto& task : {test_tasks::poll_until_stopped(), test_tasks::sleep_ms()}) {
    {
      auto results = pool.map_unordered(task, inputs,
                                        {.chunksize = 1, .stop_running = std::chrono::milliseconds(100)});
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // they run
    }  // the range destroyed unread
    const auto start = clock::now();
    std::vector<int> freed;
    for (std::size_t i = 0; i < pool.max_workers(); ++i) freed.push_back(pool.submit(test_tasks::pid()).get());
    EXPECT_LT(clock::now() - start, std::chrono::seconds(10));
  }
}

// No chunk size given: chosen as the map goes; every result in its place.
template <class Pool>
void expect_automatic_chunks_to_keep_input_order(Pool& pool) {
  for (int n : {1, 2, 1000, 20000}) {
    std::vector<int> inputs(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) inputs[i] = i;
    const std::vector<int> out = pool.map(test_tasks::scale(2), inputs);
    ASSERT_EQ(out.size(), inputs.size());
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 2 * i) << "n " << n;
  }
  const std::vector<int> unsized = pool.map(test_tasks::scale(2), counting_input{.limit = 5000});
  ASSERT_EQ(unsized.size(), 5000u);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(unsized[i], 2 * i);
}

// With pool_options::task_retries, a map's chunk whose worker died is sent
// again: every input dies once (test_tasks::die_once), so a chunk of three
// is sent four times, and every result comes. The pool must have
// task_retries of at least 3.
template <class Pool>
void expect_map_chunks_sent_again_after_a_death(Pool& pool) {
  const std::string dir = ::testing::TempDir() + "/ferry_die_once_" + std::to_string(::getpid());
  std::vector<std::string> paths;
  for (int i = 0; i < 6; ++i) paths.push_back(dir + "_" + std::to_string(i));
  for (const std::string& p : paths) std::remove(p.c_str());
  for (std::size_t chunk : {1u, 3u}) {
    EXPECT_EQ(pool.map(test_tasks::die_once(), paths, chunk), std::vector<int>(paths.size(), 1))
        << "chunksize " << chunk;
    for (const std::string& p : paths) std::remove(p.c_str());
  }
}

// map_options::retries replaces the pool's task_retries for a map's chunks:
// on a pool without them (`pool_retries` false) a map given retries still
// ends with every value after a worker's death in each chunk; on a pool
// with them, a map given 0 fails with that death.
template <class Pool>
void expect_map_options_retries_to_replace_the_pools(Pool& pool, bool pool_retries) {
  const std::string dir = ::testing::TempDir() + "/ferry_die_once_map_" + std::to_string(::getpid());
  std::vector<std::string> paths;
  for (int i = 0; i < 4; ++i) paths.push_back(dir + "_" + std::to_string(i));
  for (const std::string& p : paths) std::remove(p.c_str());
  if (pool_retries) {
    // One chunk: no other chunk still runs, and writes its file, once the
    // map has thrown.
    EXPECT_THROW(
        pool.map(test_tasks::die_once(), paths, ferry::map_options{.chunksize = paths.size(), .retries = 0}),
        ferry::worker_died_error);
  } else {
    EXPECT_EQ(pool.map(test_tasks::die_once(), paths, ferry::map_options{.chunksize = 2, .retries = 2}),
              std::vector<int>(paths.size(), 1));
  }
  for (const std::string& p : paths) std::remove(p.c_str());
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_STREAMING_MAP_H_
