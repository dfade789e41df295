// Copyright ferry authors.
#include "executor/core/user_callback.h"

#include <unistd.h>

#include <atomic>
#include <string>
#include <typeinfo>

#include "serialize/code/demangle.h"

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

std::string describe(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return demangle(typeid(x).name()) + ": " + x.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace

bool report_dropped_exception(user_callback which, const std::exception_ptr& e) noexcept {
  if (reported[static_cast<int>(which)].exchange(true)) return false;
  try {
    const std::string line = std::string("ferry: ") + name_of(which) + " threw (" + describe(e) +
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
