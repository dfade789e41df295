// Copyright ferry authors.
//
// Same value, same build, same bytes: for every route, and for unordered
// containers whatever order their elements went in, including after a load
// and a dump again in another process (serialize/unordered.h).
#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <unordered_set>

#include <serialize/serialize.h>

#include "../child_output.h"

namespace {

// What another process gets when it loads `bytes` as T and dumps it again.
template <class T>
std::string dumped_again_elsewhere(const std::string& bytes) {
  return ferry_test::output_of_child([&] { return ferry::dumps(ferry::loads<T>(bytes)); });
}

// The same 200 entries, inserted forwards into a small table and backwards
// into one with many buckets: iteration orders differ.
std::unordered_map<std::string, int> forwards() {
  std::unordered_map<std::string, int> m;
  for (int i = 0; i < 200; ++i) m.emplace("key" + std::to_string(i), i);
  return m;
}
std::unordered_map<std::string, int> backwards() {
  std::unordered_map<std::string, int> m;
  m.reserve(5000);
  for (int i = 199; i >= 0; --i) m.emplace("key" + std::to_string(i), i);
  return m;
}

int add_one(int x) { return x + 1; }

}  // namespace

TEST(Determinism, UnorderedMapInAnyInsertionOrderGivesTheSameBytes) {
  const auto a = forwards();
  const auto b = backwards();
  ASSERT_EQ(a, b);
  ASSERT_NE(a.begin()->first, b.begin()->first) << "the test needs two iteration orders";
  EXPECT_EQ(ferry::dumps(a), ferry::dumps(b));
}

TEST(Determinism, UnorderedSetsAndMultiContainersToo) {
  std::unordered_set<int> s1, s2;
  s2.reserve(4096);
  for (int i = 0; i < 300; ++i) s1.insert(i * 7919 % 1000);
  for (int i = 299; i >= 0; --i) s2.insert(i * 7919 % 1000);
  EXPECT_EQ(ferry::dumps(s1), ferry::dumps(s2));
  std::unordered_multimap<int, int> m1, m2;
  m2.reserve(4096);
  for (int i = 0; i < 100; ++i) m1.emplace(i % 37, 5);
  for (int i = 99; i >= 0; --i) m2.emplace(i % 37, 5);
  EXPECT_EQ(ferry::dumps(m1), ferry::dumps(m2));
}

TEST(Determinism, LoadedAndDumpedAgainInAnotherProcessGivesTheSameBytes) {
  using map = std::unordered_map<std::string, int>;
  const std::string bytes = ferry::dumps(backwards());
  EXPECT_EQ(dumped_again_elsewhere<map>(bytes), bytes);
}

TEST(Determinism, EveryRouteDumpsTheSameBytesTwiceAndAfterAReload) {
  using fn = ferry::function<int(int)>;
  struct aggregate {
    int k;
    std::string s;
    int operator()(int x) const { return x + k + static_cast<int>(s.size()); }
  };
  int base = 3;  // not const: a constant would need no capture, and the bitwise route would hold no state
  const std::vector<fn> routes = {
      fn([](int x) { return x; }),                                         // stateless
      fn(&add_one),                                                        // function pointer
      fn(ferry::bitwise([base](int x) { return x + base; })),              // bitwise
      fn(aggregate{1, "two"}),                                             // aggregate
      fn(ferry::closure([](const std::unordered_map<std::string, int>& m, int x) {
        return x + static_cast<int>(m.size());
      }, backwards())),                                                    // closure
      fn(ferry::named<"determinism.add">([](int x) { return x + 2; })),    // named
  };
  for (std::size_t i = 0; i < routes.size(); ++i) {
    const std::string bytes = ferry::dumps(routes[i]);
    EXPECT_EQ(ferry::dumps(routes[i]), bytes) << "route " << i;
    EXPECT_EQ(dumped_again_elsewhere<fn>(bytes), bytes) << "route " << i;
  }
}
