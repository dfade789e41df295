// Copyright ferry authors.
//
// The wait status of a forked child, waited for at most `limit`; a child
// still running then is killed and reaped, and nullopt says so.
#ifndef FERRY_TESTS_CHILD_EXIT_H_
#define FERRY_TESTS_CHILD_EXIT_H_

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <optional>
#include <thread>

namespace ferry_test {

inline std::optional<int> wait_status_within(pid_t child, std::chrono::milliseconds limit) {
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status;
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_CHILD_EXIT_H_
