// Copyright ferry authors.
//
// Which pool's loop a thread runs a pass of (src/executor/core/loop_scope.h):
// set while a scope lives, the outer one back after a nested one, per kind
// of core and per thread; and the pool's stop inbox says so to its futures.
#include "executor/core/loop_scope.h"

#include <gtest/gtest.h>

#include <thread>

namespace ferry::detail {
namespace {

struct one_core {};
struct other_core {};

TEST(LoopScope, AThreadIsInALoopOnlyWhileItsScopeLives) {
  one_core a;
  EXPECT_FALSE(loop_scope<one_core>::in_any());
  {
    loop_scope<one_core> scope(&a, nullptr);
    EXPECT_TRUE(loop_scope<one_core>::in(&a));
    EXPECT_TRUE(loop_scope<one_core>::in_any());
  }
  EXPECT_FALSE(loop_scope<one_core>::in(&a));
  EXPECT_FALSE(loop_scope<one_core>::in_any());
}

TEST(LoopScope, ANestedScopeGivesBackTheOuterOnesLoop) {
  one_core a;
  one_core b;
  loop_scope<one_core> outer(&a, nullptr);
  {
    loop_scope<one_core> inner(&b, nullptr);
    EXPECT_TRUE(loop_scope<one_core>::in(&b));
    EXPECT_FALSE(loop_scope<one_core>::in(&a));
  }
  EXPECT_TRUE(loop_scope<one_core>::in(&a));
}

TEST(LoopScope, EachKindOfCoreAndEachThreadHasItsOwn) {
  one_core a;
  other_core o;
  loop_scope<one_core> scope(&a, nullptr);
  EXPECT_FALSE(loop_scope<other_core>::in_any());
  {
    loop_scope<other_core> other(&o, nullptr);
    EXPECT_TRUE(loop_scope<one_core>::in(&a));
    EXPECT_TRUE(loop_scope<other_core>::in(&o));
  }
  bool seen_elsewhere = true;
  std::thread([&] { seen_elsewhere = loop_scope<one_core>::in_any(); }).join();
  EXPECT_FALSE(seen_elsewhere);
}

TEST(LoopScope, ThePoolsStopInboxSaysItFinishesItsTasksHereOnlyInsideTheScope) {
  one_core a;
  stop_inbox mine([] {});
  stop_inbox other([] {});
  EXPECT_FALSE(mine.finishes_here());
  {
    loop_scope<one_core> scope(&a, &mine);
    EXPECT_TRUE(mine.finishes_here());
    EXPECT_FALSE(other.finishes_here());
    {
      loop_scope<other_core> inner(nullptr, &other);
      EXPECT_TRUE(other.finishes_here());
      EXPECT_FALSE(mine.finishes_here());
    }
    EXPECT_TRUE(mine.finishes_here());
    bool seen_elsewhere = true;
    std::thread([&] { seen_elsewhere = mine.finishes_here(); }).join();
    EXPECT_FALSE(seen_elsewhere);
  }
  EXPECT_FALSE(mine.finishes_here());
}

}  // namespace
}  // namespace ferry::detail
