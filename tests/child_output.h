// Copyright ferry authors.
//
// What a forked child of a test writes: the child runs `produce`, which
// returns the bytes to send back, and exits; the parent collects them and
// reaps it. For tests that need a second process to load or make something
// the test process itself must never have loaded.
#ifndef FERRY_TESTS_CHILD_OUTPUT_H_
#define FERRY_TESTS_CHILD_OUTPUT_H_

#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace ferry_test {

// Throws std::runtime_error when the child fails (produce threw, or it
// could not write everything).
template <class Produce>
std::string output_of_child(Produce produce) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    int status = 0;
    try {
      const std::string out = produce();
      const char* p = out.data();
      std::size_t left = out.size();
      while (left > 0) {
        const ssize_t n = ::write(fds[1], p, left);
        if (n <= 0) ::_exit(4);
        p += n;
        left -= static_cast<std::size_t>(n);
      }
    } catch (...) {
      status = 3;
    }
    ::_exit(status);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("the child failed");
  return out;
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_CHILD_OUTPUT_H_
