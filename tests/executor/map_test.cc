// Copyright ferry authors.
//
// map, map_ordered and map_unordered: input order, the first failure,
// results as they arrive, a timeout, and maps that stream (streaming_map.h,
// shared with the MPI pool's tests).
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "streaming_map.h"
#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;

using ferry_test::method;
using ferry_test::options;
using Map = ferry_test::ExecutorTest;

TEST_F(Map, MapKeepsInputOrder) {
  ferry::process_pool pool(options());
  std::vector<int> inputs;
  for (int i = 0; i < 100; ++i) inputs.push_back(i);
  for (std::size_t chunk : {1u, 7u, 256u}) {
    const std::vector<int> out = pool.map(test_tasks::scale(3), inputs, chunk);
    ASSERT_EQ(out.size(), inputs.size());
    for (int i = 0; i < 100; ++i) EXPECT_EQ(out[i], 3 * i) << "chunksize " << chunk;
  }
  pool.map(test_tasks::discard(), inputs, 10);
}

// A std::map's elements are std::pair<const K, V>: they travel as
// std::pair<K, V>, which a task taking the element as iterating gives it
// receives (it failed to compile, deep in cereal, loading the const key).
TEST_F(Map, AMapOverAStdMapAndASubmitOfItsElementRunTheirTasks) {
  ferry::process_pool pool(options());
  const std::map<std::string, int> m{{"a", 1}, {"b", 2}, {"c", 3}};
  EXPECT_EQ(test_tasks::map_over_std_map(pool, m),
            (std::vector<std::string>{"a=1", "b=2", "c=3", "a=1", "b=2", "c=3"}));
  EXPECT_EQ(test_tasks::submit_std_map_element(pool, m), (std::vector<std::string>{"a=1", "a=1"}));
}

// pool.map(f, {1, 2, 3}), as Python's map(f, [1, 2, 3]), did not compile.
// The list's array ends with its statement, before a range-for's body
// runs: map_ordered and map_unordered read a copy.
TEST_F(Map, ABracedListIsMappedAsAVectorOfItsElements) {
  ferry::process_pool pool(options(2));
  EXPECT_EQ(pool.map(test_tasks::scale(2), {1, 2, 3}), (std::vector<int>{2, 4, 6}));
  std::vector<int> ordered;
  for (int r : pool.map_ordered(test_tasks::scale(3), {1, 2, 3}, 1)) ordered.push_back(r);
  EXPECT_EQ(ordered, (std::vector<int>{3, 6, 9}));
  std::vector<int> unordered(3);
  for (auto [i, r] : pool.map_unordered(test_tasks::scale(4), {1, 2, 3}, 1)) unordered.at(i) = r;
  EXPECT_EQ(unordered, (std::vector<int>{4, 8, 12}));
}

// pool.map(f, a, b), as Python's map(f, a, b), gave a static_assert: each
// shape of a zipped map, on every start method (test_tasks.h says which).
TEST_F(Map, SeveralRangesAreZippedUpToTheShortestAsPythonsMapZipsThem) {
  ferry::process_pool pool(options(2));
  EXPECT_EQ(test_tasks::zipped_maps(pool), (std::vector<std::string>{"4 10 18", "1a0.5 2b1.5 3c2.5", "100 103 106",
                                                                     "7x 8y 9z", "p1 q2", "9 18 27", "0 results",
                                                                     "1 4 9"}));
}

TEST_F(Map, MapRethrowsTheFirstFailureInOrder) {
  ferry::process_pool pool(options());
  const std::vector<std::string> kinds = {"none", "out_of_range", "runtime_error"};
  EXPECT_THROW(pool.map(test_tasks::throw_std(), kinds, 1), std::out_of_range);
}

TEST_F(Map, MapOrderedYieldsResultsAsTheyArrive) {
  ferry::process_pool pool(options(2));
  const auto start = std::chrono::steady_clock::now();
  auto results = pool.map_ordered(test_tasks::sleep_ms(), std::vector<int>{1, 1500});
  auto it = results.begin();
  EXPECT_GT(*it, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1200ms);  // did not wait for the slow one
  ++it;
  EXPECT_GT(*it, 0);
  ++it;
  EXPECT_TRUE(it == results.end());
}

TEST_F(Map, MapWithATimeout) {
  ferry::process_pool pool(options(1));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(pool.map(test_tasks::sleep_ms(), std::vector<int>{1000, 1000, 1000}, 1, 200ms),
               ferry::wait_timeout_error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 900ms);
  EXPECT_EQ(pool.map(test_tasks::scale(2), std::vector<int>{1, 2}, 1, 10s), (std::vector<int>{2, 4}));
}


TEST_F(Map, MapUnorderedYieldsEachResultWithItsIndexAsItsChunkFinishes) {
  ferry::process_pool pool(options(4));
  ferry_test::expect_unordered_results_with_their_indexes(pool);
}

TEST_F(Map, MapsReadASinglePassInputOnce) {
  ferry::process_pool pool(options());
  ferry_test::expect_single_pass_inputs_mapped(pool);
}

TEST_F(Map, AMapReadsItsInputNoFurtherAheadThanItsWindow) {
  ferry::process_pool pool(options());
  ferry_test::expect_reading_no_further_ahead_than_the_window(pool);
}

TEST_F(Map, AnInputsExceptionComesOutOfTheMapUnchangedAndCancelsWhatIsQueued) {
  ferry::process_pool pool(options(1));
  ferry_test::expect_an_input_error_out_unchanged_and_the_queue_cancelled(pool, 600);
}

TEST_F(Map, AChunkWhoseWorkerDiedThrowsAtEachOfItsItemsAndTheIterationGoesOn) {
  ferry::process_pool pool(options(2));
  ferry_test::expect_a_dead_chunk_to_throw_at_its_items_and_the_iteration_to_go_on(pool);
}

TEST_F(Map, AMapEndedEarlyWithStopRunningStopsItsRunningChunks) {
  ferry::process_pool pool(options(2));
  ferry_test::expect_an_early_end_to_stop_running_chunks(pool);
}

TEST_F(Map, LeavingAMapsLoopEarlyCancelsTheRest) {
  ferry::process_pool pool(options(1));
  ferry_test::expect_leaving_the_loop_early_cancels_the_rest(pool, 600);
}

TEST_F(Map, WithoutAChunkSizeAMapChoosesOneAndKeepsInputOrder) {
  ferry::process_pool pool(options());
  ferry_test::expect_automatic_chunks_to_keep_input_order(pool);
}

TEST_F(Map, WithTaskRetriesAMapsChunkWhoseWorkerDiedIsSentAgain) {
  ferry::pool_options o = options(2);
  o.task_retries = 3;
  ferry::process_pool pool(o);
  ferry_test::expect_map_chunks_sent_again_after_a_death(pool);
  // Without retries the same death fails the map.
  ferry::process_pool plain(options(1));
  const std::string path = ::testing::TempDir() + "/ferry_die_once_plain_" + std::to_string(::getpid());
  std::remove(path.c_str());
  EXPECT_THROW(plain.map(test_tasks::die_once(), std::vector<std::string>{path}), ferry::worker_died_error);
  std::remove(path.c_str());
}

TEST_F(Map, AMapsOwnRetriesReplaceThePoolsTaskRetries) {
  ferry::process_pool plain(options(2));
  ferry_test::expect_map_options_retries_to_replace_the_pools(plain, false);
  ferry::pool_options o = options(2);
  o.task_retries = 3;
  ferry::process_pool retrying(o);
  ferry_test::expect_map_options_retries_to_replace_the_pools(retrying, true);
}

TEST_F(Map, AMapThatTimesOutCancelsWhatItHasNotSent) {
  ferry::process_pool pool(options(1));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(pool.map_unordered(test_tasks::sleep_ms(), std::vector<int>{1000, 1000, 1000},
                                  ferry::map_options{.chunksize = 1, .timeout = 200ms})
                   .begin(),
               ferry::wait_timeout_error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 900ms);
}
