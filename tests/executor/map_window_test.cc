// Copyright ferry authors.
//
// A map's engine on its own (include/executor/internal/map_window.h): a
// chunk source that makes states the test finishes, no pool. The order in
// which chunks are handed out, how many are out at once, the chunk size
// asked for, and what an early end or a timeout cancels.
#include <executor/internal/map_window.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include <executor/errors.h>

namespace ferry::detail {
namespace {

using namespace std::chrono_literals;

// Takes `inputs` inputs, `most` at a time as asked; each chunk a pending
// state the test finishes or leaves.
class fake_source final : public chunk_source {
 public:
  explicit fake_source(std::size_t inputs) : left_(inputs) {}
  submitted next(std::uint32_t most) override {
    asked.push_back(most);
    if (left_ == 0) return {};
    const auto n = static_cast<std::uint32_t>(std::min<std::size_t>(most, left_));
    left_ -= n;
    states.push_back(make_future_state());
    return {states.back(), n};
  }
  std::vector<std::shared_ptr<future_state>> states;  // in the order sent
  std::vector<std::uint32_t> asked;

 private:
  std::size_t left_;
};

struct window_under_test {
  fake_source* source;
  std::unique_ptr<map_window> window;
};

window_under_test make_window(std::size_t inputs, const map_options& options, bool in_input_order) {
  auto source = std::make_unique<fake_source>(inputs);
  fake_source* raw = source.get();
  auto window = std::make_unique<map_window>(std::move(source), options, 1, inputs, in_input_order);
  return {raw, std::move(window)};
}

void finish(const std::shared_ptr<future_state>& s) { s->finish_local(void_value()); }

TEST(MapWindow, InInputOrderAChunkThatFinishedFirstWaitsForTheOnesBefore) {
  auto [source, window] = make_window(3, {.chunksize = 1, .max_chunks_in_flight = 3}, true);
  ASSERT_EQ(source->states.size(), 3u);
  for (int i = 2; i >= 0; --i) finish(source->states[static_cast<std::size_t>(i)]);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto f = window->next();
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->first_index, i);
    EXPECT_EQ(f->count, 1u);
  }
  EXPECT_FALSE(window->next().has_value());
}

TEST(MapWindow, UnorderedAChunkIsHandedOutAsItFinishes) {
  auto [source, window] = make_window(3, {.chunksize = 1, .max_chunks_in_flight = 3}, false);
  ASSERT_EQ(source->states.size(), 3u);
  std::vector<std::size_t> handed;
  for (const std::size_t i : {2u, 0u, 1u}) {
    finish(source->states[i]);
    const auto f = window->next();
    ASSERT_TRUE(f.has_value());
    handed.push_back(f->first_index);
  }
  EXPECT_EQ(handed, (std::vector<std::size_t>{2, 0, 1}));
  EXPECT_FALSE(window->next().has_value());
}

TEST(MapWindow, NoMoreChunksAreOutThanTheWindowAllows) {
  auto [source, window] = make_window(10, {.chunksize = 1, .max_chunks_in_flight = 2}, true);
  EXPECT_EQ(source->states.size(), 2u) << "sent before the first result was asked for";
  for (std::size_t handed = 0; handed < 10; ++handed) {
    finish(source->states[handed]);
    ASSERT_TRUE(window->next().has_value());
    // Topped up when a chunk is asked for: never more than two out.
    EXPECT_LE(source->states.size(), handed + 1 + 2);
  }
  EXPECT_FALSE(window->next().has_value());
}

TEST(MapWindow, AFixedChunksizeIsWhatTheSourceIsAskedFor) {
  auto [source, window] = make_window(10, {.chunksize = 4, .max_chunks_in_flight = 8}, true);
  ASSERT_EQ(source->states.size(), 3u);
  for (const auto& s : source->states) finish(s);
  std::vector<std::uint32_t> counts;
  while (const auto f = window->next()) counts.push_back(f->count);
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{4, 4, 2}));
  for (const std::uint32_t most : source->asked) EXPECT_EQ(most, 4u);
}

TEST(MapWindow, DestroyingItCancelsTheChunksNotHandedOut) {
  auto [source, window] = make_window(3, {.chunksize = 1, .max_chunks_in_flight = 3}, true);
  finish(source->states[0]);
  ASSERT_TRUE(window->next().has_value());
  const std::vector<std::shared_ptr<future_state>> states = source->states;
  window.reset();
  for (std::size_t i = 1; i < states.size(); ++i) {
    ASSERT_TRUE(states[i]->ready()) << "chunk " << i;
    EXPECT_THROW(std::rethrow_exception(states[i]->error()), cancelled_error) << "chunk " << i;
  }
}

TEST(MapWindow, PastItsTimeoutItThrowsWaitTimeoutErrorAndCancelsWhatIsOut) {
  auto [source, window] = make_window(2, {.chunksize = 1, .max_chunks_in_flight = 2, .timeout = 30ms}, true);
  const auto before = std::chrono::steady_clock::now();
  EXPECT_THROW(window->next(), wait_timeout_error);
  EXPECT_GE(std::chrono::steady_clock::now() - before, 25ms);
  for (const auto& s : source->states) {
    ASSERT_TRUE(s->ready());
    EXPECT_THROW(std::rethrow_exception(s->error()), cancelled_error);
  }
}

}  // namespace
}  // namespace ferry::detail
