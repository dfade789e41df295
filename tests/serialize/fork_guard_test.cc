// Copyright ferry authors.
//
// src/serialize/code/fork_guard.cc: fork() waits for any thread holding one
// of ferry's locks to let it go, and the child starts with every one of them
// free. Each lock is held here through its own hold_*_for_fork, by a thread
// that lets it go 100 ms later; the child then takes and releases the same
// lock, under an alarm that ends it if the lock was left taken.
#include "serialize/code/fork_guard.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <future>
#include <ostream>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using ferry::detail::fork_phase;

struct guarded_lock {
  const char* name;
  void (*hold)(fork_phase);
};

// What GoogleTest shows of a case: its name, not its bytes (which hold
// addresses, and would name the test differently in every build).
void PrintTo(const guarded_lock& lock, std::ostream* out) { *out << lock.name; }

class ForkGuard : public ::testing::TestWithParam<guarded_lock> {};

TEST_P(ForkGuard, ForkWaitsForTheHolderAndTheChildFindsTheLockFree) {
#if defined(FERRY_UNDER_TSAN)
  // ThreadSanitizer counts the holder thread, which the child inherits as
  // a record but not as a thread, as leaked when the child exits.
  GTEST_SKIP() << "ThreadSanitizer reports a forked child's inherited threads as leaked";
#endif
  const auto hold = GetParam().hold;
  std::promise<void> holding;
  std::thread holder([&] {
    hold(fork_phase::acquire);
    holding.set_value();
    std::this_thread::sleep_for(100ms);
    hold(fork_phase::release);
  });
  holding.get_future().wait();
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t child = ::fork();
  if (child == 0) {
    ::alarm(5);  // a lock left taken ends the child with SIGALRM
    hold(fork_phase::acquire);
    hold(fork_phase::release);
    ::_exit(0);
  }
  const auto waited = std::chrono::steady_clock::now() - t0;
  holder.join();
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the child " << (WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status)) : "failed");
  EXPECT_GE(waited, 50ms) << "fork did not wait for the thread holding the lock";
}

INSTANTIATE_TEST_SUITE_P(EachLock, ForkGuard,
                         ::testing::Values(guarded_lock{"modules", ferry::detail::hold_modules_for_fork},
                                           guarded_lock{"loaded_modules", ferry::detail::hold_loaded_modules_for_fork},
                                           guarded_lock{"policy", ferry::detail::hold_policy_for_fork},
                                           guarded_lock{"registry", ferry::detail::hold_registry_for_fork},
                                           guarded_lock{"verified", ferry::detail::hold_verified_for_fork},
                                           guarded_lock{"build_id_index", ferry::detail::hold_build_id_index_for_fork}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
