// Copyright ferry authors.
#ifndef FERRY_EXECUTOR_ORDERED_RESULTS_H_
#define FERRY_EXECUTOR_ORDERED_RESULTS_H_

#include <chrono>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "executor/errors.h"
#include "executor/internal/result_items.h"
#include "executor/internal/submit.h"

namespace ferry {

// The results of a pool's map_ordered (process_pool, mpi_pool), in input
// order. An input range:
// iterate it once. Each result is decoded when its iterator is dereferenced.
template <class R>
class ordered_results {
 public:
  explicit ordered_results(std::vector<detail::chunk> chunks) : chunks_(std::move(chunks)) {}

  void set_deadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }

  class iterator {
   public:
    using value_type = std::conditional_t<std::is_void_v<R>, std::monostate, R>;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(ordered_results* owner) : owner_(owner) { settle(); }

    // The result, or what map would throw for this input.
    value_type operator*() const {
      if constexpr (std::is_void_v<R>) {
        detail::read_item<void>(items_[item_]);
        return {};
      } else {
        return detail::read_item<R>(items_[item_]);
      }
    }
    iterator& operator++() {
      ++item_;
      settle();
      return *this;
    }
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const { return owner_ == nullptr; }

   private:
    // Moves to a chunk with an item left, waiting for it; or to the end.
    void settle() {
      while (owner_ != nullptr && item_ == items_.size()) {
        if (chunk_ == owner_->chunks_.size()) {
          owner_ = nullptr;
          return;
        }
        items_ = owner_->items_of(chunk_++);
        item_ = 0;
      }
    }
    ordered_results* owner_ = nullptr;
    std::size_t chunk_ = 0;
    std::vector<std::string_view> items_;
    std::size_t item_ = 0;
  };

  iterator begin() { return iterator(this); }
  std::default_sentinel_t end() { return {}; }

 private:
  std::vector<std::string_view> items_of(std::size_t i) {
    detail::chunk& c = chunks_[i];
    if (deadline_ && !c.state->wait_until(*deadline_)) {
      for (std::size_t j = i; j < chunks_.size(); ++j) chunks_[j].state->cancel();
      throw wait_timeout_error("ferry: map did not finish in time; the inputs not yet sent were cancelled");
    }
    return detail::result_items(*c.state, c.count);
  }

  std::vector<detail::chunk> chunks_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_ORDERED_RESULTS_H_
