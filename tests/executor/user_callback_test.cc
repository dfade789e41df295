// Copyright ferry authors.
//
// A callback the user gave a pool that throws (executor/core/user_callback.h):
// the exception stays in the call, and is said once per kind of callback.
#include "executor/core/user_callback.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using ferry::detail::call_user;
using ferry::detail::user_callback;

TEST(UserCallback, WhatACallbackThrowsStaysInTheCallAndIsSaidOncePerKindOfCallback) {
  int calls = 0;
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    call_user(user_callback::on_output, [&] {
      ++calls;
      throw std::runtime_error("sink full");
    });
  }
  call_user(user_callback::observer, [] { throw 42; });
  call_user(user_callback::on_done, [] { throw std::logic_error("done"); });
  call_user(user_callback::observer, [&] { ++calls; });
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(calls, 4);
  const std::string output_line =
      "ferry: pool_options::on_output threw (std::runtime_error: sink full); the pool dropped the exception";
  const std::size_t first = err.find(output_line);
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find(output_line, first + 1), std::string::npos) << "said more than once: " << err;
  EXPECT_NE(err.find("ferry: the pool's observer (pool_options::observer) threw (an exception of type int)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("ferry: a callback given to future::on_done threw (std::logic_error: done)"), std::string::npos)
      << err;
}
