// Copyright ferry authors.
//
// Which pool's loop a thread runs a pass of (src/executor/core/loop_scope.h):
// set while a scope lives, the outer one back after a nested one, per kind
// of core and per thread.
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
    loop_scope<one_core> scope(&a);
    EXPECT_TRUE(loop_scope<one_core>::in(&a));
    EXPECT_TRUE(loop_scope<one_core>::in_any());
  }
  EXPECT_FALSE(loop_scope<one_core>::in(&a));
  EXPECT_FALSE(loop_scope<one_core>::in_any());
}

TEST(LoopScope, ANestedScopeGivesBackTheOuterOnesLoop) {
  one_core a;
  one_core b;
  loop_scope<one_core> outer(&a);
  {
    loop_scope<one_core> inner(&b);
    EXPECT_TRUE(loop_scope<one_core>::in(&b));
    EXPECT_FALSE(loop_scope<one_core>::in(&a));
  }
  EXPECT_TRUE(loop_scope<one_core>::in(&a));
}

TEST(LoopScope, EachKindOfCoreAndEachThreadHasItsOwn) {
  one_core a;
  other_core o;
  loop_scope<one_core> scope(&a);
  EXPECT_FALSE(loop_scope<other_core>::in_any());
  {
    loop_scope<other_core> other(&o);
    EXPECT_TRUE(loop_scope<one_core>::in(&a));
    EXPECT_TRUE(loop_scope<other_core>::in(&o));
  }
  bool seen_elsewhere = true;
  std::thread([&] { seen_elsewhere = loop_scope<one_core>::in_any(); }).join();
  EXPECT_FALSE(seen_elsewhere);
}

}  // namespace
}  // namespace ferry::detail
