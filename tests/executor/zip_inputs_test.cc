// Copyright ferry authors.
//
// The input of a map over several ranges (include/executor/internal/zip_inputs.h).
#include <executor/internal/zip_inputs.h>

#include <gtest/gtest.h>

#include <list>
#include <ranges>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using ferry::detail::zip_inputs;

namespace {

template <class... R>
auto zip(R&... ranges) {
  return zip_inputs<std::views::all_t<R&>...>(std::views::all(ranges)...);
}

}  // namespace

TEST(ZipInputs, ItEndsWithTheShortestRangeWhicheverItIs) {
  std::vector<int> three{1, 2, 3};
  std::list<std::string> two{"a", "b"};
  std::vector<std::tuple<int, std::string>> seen;
  for (auto [n, s] : zip(three, two)) seen.emplace_back(n, s);
  EXPECT_EQ(seen, (std::vector<std::tuple<int, std::string>>{{1, "a"}, {2, "b"}}));
  seen.clear();
  for (auto [s, n] : zip(two, three)) seen.emplace_back(n, s);
  EXPECT_EQ(seen.size(), 2u);
  std::vector<int> none;
  auto empty = zip(three, none);
  EXPECT_TRUE(empty.begin() == empty.end());
}

TEST(ZipInputs, ItGivesTheElementsThemselvesNotCopies) {
  std::vector<int> a{1, 2};
  std::vector<std::string> b{"x", "y"};
  auto z = zip(a, b);
  auto first = *z.begin();
  EXPECT_EQ(&std::get<0>(first), &a[0]);
  EXPECT_EQ(&std::get<1>(first), &b[0]);
}

TEST(ZipInputs, ItIsAForwardRangeOnlyWhenEveryRangeIsOne) {
  std::vector<int> v{1, 2, 3};
  std::istringstream text("7 8 9 10");
  auto numbers = std::views::istream<int>(text);
  using forward = decltype(zip(v, v));
  using single_pass = decltype(zip(numbers, v));
  static_assert(std::ranges::forward_range<forward>);
  static_assert(std::ranges::input_range<single_pass> && !std::ranges::forward_range<single_pass>);
  std::vector<int> sums;
  for (auto [n, x] : zip(numbers, v)) sums.push_back(n + x);
  EXPECT_EQ(sums, (std::vector<int>{8, 10, 12}));
}

TEST(ZipInputs, ItIsSizedByTheShortestWhenEveryRangeIsSized) {
  std::vector<int> three{1, 2, 3};
  std::list<int> two{1, 2};
  auto endless = std::views::iota(0);
  auto sized = zip(three, two);
  static_assert(std::ranges::sized_range<decltype(sized)>);
  EXPECT_EQ(std::ranges::size(sized), 2u);
  auto with_endless = zip(endless, three);
  static_assert(!std::ranges::sized_range<decltype(with_endless)>);
  EXPECT_EQ(std::ranges::distance(with_endless), 3);
}
