// Copyright ferry authors.
#include "executor/core/fork_generation.h"

#include <pthread.h>

#include <atomic>
#include <string>

#include <executor/errors.h>

namespace ferry::detail {
namespace {
std::atomic<std::uint64_t> forks{0};
}  // namespace

std::uint64_t fork_generation() {
  // Registered before the first pool or future exists: no fork that could
  // copy one goes uncounted.
  static const bool counting = [] {
    ::pthread_atfork(nullptr, nullptr, [] { forks.fetch_add(1, std::memory_order_relaxed); });
    return true;
  }();
  (void)counting;
  return forks.load(std::memory_order_relaxed);
}

void throw_used_after_fork(const char* what) {
  throw error(std::string("ferry: ") + what +
              " made before fork() was used in the child: its manager thread and its workers stayed in the "
              "parent, so nothing here would ever run or finish; make a new pool in the child (or fork "
              "before making the pool)");
}

}  // namespace ferry::detail
