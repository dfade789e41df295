// Copyright ferry authors.
//
// What a pool's map_ordered and map_unordered return (process_pool,
// mpi_pool): ranges over results that arrive as the iteration goes. Each
// is an input range: iterate it once, from one thread. It sends its input's
// chunks only as far ahead of the iteration as map_options allows, reading
// the input as it goes, so the input range it was given (when given as an
// lvalue) must live until the iteration ends. Destroying it, or leaving the
// loop early, cancels the chunks not yet sent; those running finish and
// their results are dropped. Each result is decoded when its iterator is
// dereferenced.
#ifndef FERRY_EXECUTOR_ORDERED_RESULTS_H_
#define FERRY_EXECUTOR_ORDERED_RESULTS_H_

#include <cstddef>
#include <exception>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "executor/internal/map_window.h"
#include "executor/internal/result_items.h"

namespace ferry {

// An item of map_unordered: the result of inputs[index].
template <class R>
struct indexed_result {
  std::size_t index = 0;
  R value{};
};
template <>
struct indexed_result<void> {
  std::size_t index = 0;
};

namespace detail {

// Walks the items of the chunks a map_window hands out.
template <class Item>
class map_results {
 public:
  explicit map_results(std::unique_ptr<map_window> window) : window_(std::move(window)) {}

  class iterator {
   public:
    using value_type = Item;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(map_results* owner) : owner_(owner) { settle(); }

    // The result, or what map would throw for this input (the task's
    // exception, ferry::worker_died_error, ...).
    value_type operator*() const { return owner_->read(item_); }
    iterator& operator++() {
      ++item_;
      settle();
      return *this;
    }
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const { return owner_ == nullptr; }

   private:
    // Moves to an item of a finished chunk, waiting for one, or to the end.
    // Throws ferry::wait_timeout_error, or what the input's iterator threw;
    // the map has then ended (map_window::next), and so has the iteration:
    // the iterator is at the end, not at an item it does not have.
    void settle() {
      while (owner_ != nullptr && item_ == owner_->items_.size()) {
        bool more = false;
        try {
          more = owner_->advance();
        } catch (...) {
          owner_ = nullptr;
          throw;
        }
        if (!more) {
          owner_ = nullptr;
          return;
        }
        item_ = 0;
      }
    }
    map_results* owner_ = nullptr;
    std::size_t item_ = 0;
  };

  iterator begin() { return iterator(this); }
  std::default_sentinel_t end() { return {}; }

 private:
  bool advance() {
    items_.clear();
    attachments_ = {};
    current_.reset();
    failure_ = nullptr;
    std::optional<map_window::finished> next = window_->next();
    if (!next) return false;
    current_ = std::move(next);
    try {
      items_ = result_items(*current_->state, current_->count, &attachments_);
    } catch (...) {
      // The chunk failed as a whole (its worker died, it was cancelled or
      // could not be sent or read): each of its inputs throws that at its
      // item, as a task's own exception does, and the iteration goes on.
      failure_ = std::current_exception();
      items_.assign(current_->count, std::string_view());
    }
    return true;
  }

  Item read(std::size_t item) const {
    if (failure_) std::rethrow_exception(failure_);
    using R = typename item_traits<Item>::result;
    if constexpr (item_traits<Item>::indexed) {
      if constexpr (std::is_void_v<R>) {
        read_item<void>(items_[item]);
        return Item{current_->first_index + item};
      } else {
        return Item{current_->first_index + item, read_item<R>(items_[item], attachments_)};
      }
    } else if constexpr (std::is_same_v<Item, std::monostate>) {
      read_item<void>(items_[item]);
      return {};
    } else {
      return read_item<R>(items_[item], attachments_);
    }
  }

  template <class T>
  struct item_traits {
    using result = T;
    static constexpr bool indexed = false;
  };
  template <class T>
  struct item_traits<indexed_result<T>> {
    using result = T;
    static constexpr bool indexed = true;
  };

  std::unique_ptr<map_window> window_;
  std::optional<map_window::finished> current_;
  std::vector<std::string_view> items_;  // of current_, which keeps them alive
  std::span<const int> attachments_;     // likewise
  std::exception_ptr failure_;           // current_'s, when it failed as a whole
};

}  // namespace detail

// map_ordered's results, in input order, each waited for when reached.
template <class R>
class ordered_results
    : public detail::map_results<std::conditional_t<std::is_void_v<R>, std::monostate, R>> {
  using detail::map_results<std::conditional_t<std::is_void_v<R>, std::monostate, R>>::map_results;
};

// map_unordered's results, as their chunks finish, each with its input's
// index (indexed_result<R>).
template <class R>
class unordered_results : public detail::map_results<indexed_result<R>> {
  using detail::map_results<indexed_result<R>>::map_results;
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_ORDERED_RESULTS_H_
