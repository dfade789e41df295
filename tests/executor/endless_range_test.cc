// Copyright ferry authors.
//
// Which inputs map refuses as endless (executor/internal/endless_range.h):
// what the compiler sees, at compile time, and nothing it cannot see.
#include <executor/internal/endless_range.h>

#include <gtest/gtest.h>

#include <list>
#include <ranges>
#include <sstream>
#include <vector>

using ferry::detail::endless_range;

namespace {
constexpr auto twice = [](int x) { return 2 * x; };
constexpr auto even = [](int x) { return x % 2 == 0; };
}  // namespace

TEST(EndlessRange, AnIotaWithNoBoundAndATransformOrFilterOfItAreEndlessHoweverTheyArePassed) {
  auto endless = std::views::iota(0);
  static_assert(endless_range<decltype(endless)>);
  static_assert(endless_range<decltype(endless)&>);
  static_assert(endless_range<const decltype(endless)&>);
  static_assert(endless_range<decltype(std::views::all(endless))>);  // a ref_view
  static_assert(endless_range<decltype(endless | std::views::transform(twice))>);
  static_assert(endless_range<decltype(endless | std::views::filter(even) | std::views::transform(twice))>);
  auto doubled = endless | std::views::transform(twice);
  EXPECT_EQ(*std::ranges::next(std::ranges::begin(doubled), 3), 6);
}

TEST(EndlessRange, ARangeThatEndsOrMayEndIsNotEndless) {
  auto endless = std::views::iota(0);
  static_assert(!endless_range<std::vector<int>>);
  static_assert(!endless_range<std::list<int>&>);
  static_assert(!endless_range<decltype(std::views::iota(0, 10))>);
  static_assert(!endless_range<decltype(endless | std::views::take(5))>);
  static_assert(!endless_range<decltype(endless | std::views::take_while([](int x) { return x < 5; }))>);
  static_assert(!endless_range<decltype(std::views::istream<int>(std::declval<std::istringstream&>()))>);
  static_assert(!endless_range<int>);  // a chunk size after the ranges
  EXPECT_EQ(std::ranges::distance(endless | std::views::take(5)), 5);
}
