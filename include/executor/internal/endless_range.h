// Copyright ferry authors. Internal: whether the compiler can see that an
// input range never ends, so that map, which waits for every result and
// returns them all, refuses it instead of reading it until memory runs out.
// map_ordered and map_unordered stream, and take such a range.
#ifndef FERRY_EXECUTOR_INTERNAL_ENDLESS_RANGE_H_
#define FERRY_EXECUTOR_INTERNAL_ENDLESS_RANGE_H_

#include <iterator>
#include <ranges>
#include <type_traits>

namespace ferry::detail {

// A range whose end is std::unreachable_sentinel (std::views::iota(0), or
// a reference to or an owner of one), or a view that ends only where its
// base ends (transform, filter) over one. Ranges that end by what they
// read (views::take, take_while, istream) are not endless.
template <class R>
inline constexpr bool endless_view = false;
template <std::ranges::range R>
  requires std::is_same_v<std::ranges::sentinel_t<R>, std::unreachable_sentinel_t>
inline constexpr bool endless_view<R> = true;
template <class V, class F>
inline constexpr bool endless_view<std::ranges::transform_view<V, F>> = endless_view<V>;
template <class V, class P>
inline constexpr bool endless_view<std::ranges::filter_view<V, P>> = endless_view<V>;

template <class R>
inline constexpr bool endless_range = endless_view<std::remove_cvref_t<R>>;

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_ENDLESS_RANGE_H_
