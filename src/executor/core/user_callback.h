// Copyright ferry authors. Internal: calling what a user gave a pool to be
// called back with (an observer's on_task and on_worker, on_output, a
// future's on_done) from a thread of the pool's: its manager, a submitting
// or waiting thread's pass.
//
// An exception such a callback throws has no caller of the user's to reach:
// let through, it unwound the pool's loop, failed a task that had nothing
// to do with it, and ended the program in std::terminate. So it is dropped,
// as Python's concurrent.futures drops a done-callback's, and said on
// stderr, once per kind of callback in a process, so that a callback that
// throws for every line does not flood it.
//
// Thread-safety: call from any thread.
#ifndef FERRY_SRC_EXECUTOR_CORE_USER_CALLBACK_H_
#define FERRY_SRC_EXECUTOR_CORE_USER_CALLBACK_H_

#include <exception>

#include "internal/export.h"

namespace ferry::detail {

enum class user_callback { observer, on_output, on_done };

// Writes the line saying that `which` threw `e` and that it was dropped,
// unless one was written for `which` already; whether it wrote it.
FERRY_INTERNAL_EXPORT bool report_dropped_exception(user_callback which, const std::exception_ptr& e) noexcept;

// Calls f(); an exception it throws is reported and dropped.
template <class F>
void call_user(user_callback which, F&& f) noexcept {
  try {
    f();
  } catch (...) {
    report_dropped_exception(which, std::current_exception());
  }
}

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_USER_CALLBACK_H_
