// Copyright ferry authors. Test helper: a process with no descriptor to
// spare, for the errors that say which limit to raise.
#ifndef FERRY_TESTS_EXECUTOR_OUT_OF_DESCRIPTORS_H_
#define FERRY_TESTS_EXECUTOR_OUT_OF_DESCRIPTORS_H_

#include <sys/resource.h>
#include <unistd.h>

namespace ferry_test {

// Lowers this process's RLIMIT_NOFILE so that its next descriptor cannot
// be made (descriptors are numbered from the lowest free one, so none is
// free below the limit), and restores it when it goes.
class out_of_descriptors final {
 public:
  out_of_descriptors() {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    const int lowest_free = ::dup(0);
    ::close(lowest_free);
    rlimit lowered = saved_;
    lowered.rlim_cur = static_cast<rlim_t>(lowest_free);
    ::setrlimit(RLIMIT_NOFILE, &lowered);
  }
  ~out_of_descriptors() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  out_of_descriptors(const out_of_descriptors&) = delete;
  out_of_descriptors& operator=(const out_of_descriptors&) = delete;

 private:
  rlimit saved_{};
};

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_OUT_OF_DESCRIPTORS_H_
