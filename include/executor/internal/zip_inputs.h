// Copyright ferry authors. Internal: the input of a map over several ranges,
// pool.map(f, a, b), which calls f(a[i], b[i]) for each i, as Python's
// map(f, a, b) does: a view of tuples, one element of each range, that ends
// with the shortest range.
//
// C++23's std::views::zip is this view; g++ 12's library, in C++20, has none.
// The view is a forward range when every range is one (range_chunks.h then
// encodes each chunk from the ranges themselves, with no copy) and an input
// range otherwise (each tuple is then read once, into the chunk's buffer);
// it is sized, by the shortest, when every range is.
//
// Lifetime: it holds std::views::all of each range, so a range passed as an
// lvalue must outlive the map, as for a map over one range.
#ifndef FERRY_EXECUTOR_INTERNAL_ZIP_INPUTS_H_
#define FERRY_EXECUTOR_INTERNAL_ZIP_INPUTS_H_

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <ranges>
#include <tuple>
#include <type_traits>
#include <utility>

namespace ferry::detail {

template <std::ranges::view... V>
class zip_inputs : public std::ranges::view_interface<zip_inputs<V...>> {
  static constexpr bool forward = (std::ranges::forward_range<V> && ...);

 public:
  struct sentinel {
    std::tuple<std::ranges::sentinel_t<V>...> ends;
  };

  class iterator {
   public:
    using iterator_concept = std::conditional_t<forward, std::forward_iterator_tag, std::input_iterator_tag>;
    using iterator_category = std::input_iterator_tag;
    using value_type = std::tuple<std::ranges::range_value_t<V>...>;
    using difference_type = std::ptrdiff_t;

    iterator() = default;
    explicit iterator(std::tuple<std::ranges::iterator_t<V>...> at) : at_(std::move(at)) {}

    // The elements themselves, as each range gives them: no copy.
    std::tuple<std::ranges::range_reference_t<V>...> operator*() const {
      return std::apply([](const auto&... at) { return std::tuple<std::ranges::range_reference_t<V>...>(*at...); },
                        at_);
    }
    iterator& operator++() {
      std::apply([](auto&... at) { (++at, ...); }, at_);
      return *this;
    }
    void operator++(int)
      requires(!forward)
    {
      ++*this;
    }
    iterator operator++(int)
      requires forward
    {
      iterator before = *this;
      ++*this;
      return before;
    }
    // All the ranges advance together: the first says where the others are.
    friend bool operator==(const iterator& a, const iterator& b)
      requires forward
    {
      return std::get<0>(a.at_) == std::get<0>(b.at_);
    }
    // The end of any range is the end of the zip.
    friend bool operator==(const iterator& a, const sentinel& s) {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return ((std::get<I>(a.at_) == std::get<I>(s.ends)) || ...);
      }(std::index_sequence_for<V...>{});
    }

   private:
    std::tuple<std::ranges::iterator_t<V>...> at_;
  };

  zip_inputs() = default;
  explicit zip_inputs(V... views) : views_(std::move(views)...) {}

  iterator begin() {
    return iterator(std::apply(
        [](auto&... v) { return std::tuple<std::ranges::iterator_t<V>...>(std::ranges::begin(v)...); }, views_));
  }
  sentinel end() {
    return {std::apply(
        [](auto&... v) { return std::tuple<std::ranges::sentinel_t<V>...>(std::ranges::end(v)...); }, views_)};
  }
  std::size_t size()
    requires(std::ranges::sized_range<V> && ...)
  {
    return std::apply([](auto&... v) { return std::min({static_cast<std::size_t>(std::ranges::size(v))...}); },
                      views_);
  }

 private:
  std::tuple<V...> views_;
};

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_ZIP_INPUTS_H_
