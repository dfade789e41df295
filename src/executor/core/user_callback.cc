// Copyright ferry authors.
#include "executor/core/user_callback.h"

#include <unistd.h>

#include <atomic>
#include <string>
#include <tuple>

#include "executor/wire/task_exception.h"

namespace ferry::detail {

namespace {

std::atomic<bool> reported[3] = {false, false, false};

const char* name_of(user_callback which) {
  switch (which) {
    case user_callback::observer:
      return "the pool's observer (pool_options::observer)";
    case user_callback::on_output:
      return "pool_options::on_output";
    case user_callback::on_done:
      return "a callback given to future::on_done";
  }
  return "a callback";
}

}  // namespace

bool report_dropped_exception(user_callback which, const std::exception_ptr& e) noexcept {
  if (reported[static_cast<int>(which)].exchange(true)) return false;
  try {
    std::string type, what;
    try {
      std::rethrow_exception(e);
    } catch (...) {
      std::tie(type, what) = describe_current_exception();  // the type as the user wrote it
    }
    const std::string thrown = what.empty() ? "an exception of type " + type : type + ": " + what;
    const std::string line = std::string("ferry: ") + name_of(which) + " threw (" + thrown +
                             "); the pool dropped the exception and goes on, and drops any more it "
                             "throws without a word: catch them in the callback\n";
    // One write: the line does not mix with others.
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
  } catch (...) {
    // Out of memory for the line: the exception is dropped all the same.
  }
  return true;
}

}  // namespace ferry::detail
