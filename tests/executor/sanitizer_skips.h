// Copyright ferry authors.
//
// The tests that cannot hold under a sanitizer (a build with
// FERRY_UNDER_ASAN or FERRY_UNDER_TSAN, tests/ferry_add_test.cmake), and
// why: one list, so that a reader sees every exception in one place.
// A test names its reason:
//
//   SKIP_UNDER_SANITIZER(ferry_test::sanitizer_skip::memory_limits);
#ifndef FERRY_TESTS_EXECUTOR_SANITIZER_SKIPS_H_
#define FERRY_TESTS_EXECUTOR_SANITIZER_SKIPS_H_

#include <gtest/gtest.h>

#if defined(FERRY_UNDER_ASAN) || defined(FERRY_UNDER_TSAN)
#define FERRY_UNDER_SANITIZER 1
#endif

namespace ferry_test {

#ifdef FERRY_UNDER_SANITIZER
inline constexpr bool under_sanitizer = true;
#else
inline constexpr bool under_sanitizer = false;
#endif

namespace sanitizer_skip {
inline constexpr const char* memory_limits =
    "memory limits cannot be tested under a sanitizer, whose shadow memory dwarfs the program's";
inline constexpr const char* crash_reports =
    "under a sanitizer the null write is reported, and the worker ended, by the sanitizer";
inline constexpr const char* allocator =
    "a sanitizer's allocator is not glibc's: a process's memory says nothing of glibc's heap";
}  // namespace sanitizer_skip

}  // namespace ferry_test

// Skips the test, saying `why`, in a sanitizer's build; nothing otherwise.
#define SKIP_UNDER_SANITIZER(why)                          \
  do {                                                     \
    if (ferry_test::under_sanitizer) GTEST_SKIP() << (why); \
  } while (false)

#endif  // FERRY_TESTS_EXECUTOR_SANITIZER_SKIPS_H_
