// Copyright ferry authors. Test helper: a process with no descriptor to
// spare, for the errors a pool gives then (tests/executor/
// fault_injection_test.cc, launcher_test.cc, process_pool_test.cc).
#ifndef FERRY_TESTS_EXECUTOR_OUT_OF_DESCRIPTORS_H_
#define FERRY_TESTS_EXECUTOR_OUT_OF_DESCRIPTORS_H_

#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#ifdef FERRY_UNDER_ASAN
// UndefinedBehaviorSanitizer checks a virtual call's object by writing it to
// a pipe of its own: in a process without a free descriptor, every such call
// is reported as a call on an invalid object.
#define SKIP_WITHOUT_FREE_DESCRIPTORS() \
  GTEST_SKIP() << "UBSan's vptr check needs a free descriptor; run by the plain and TSan builds"
#else
#define SKIP_WITHOUT_FREE_DESCRIPTORS() static_cast<void>(0)
#endif

namespace ferry_test {

// Lowers RLIMIT_NOFILE to the lowest free descriptor number (descriptors
// are numbered from the lowest free one, so none is free below it): this
// process cannot open another descriptor until the object is destroyed.
class no_free_descriptor final {
 public:
  no_free_descriptor() {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    const int lowest_free = ::dup(0);
    ::close(lowest_free);
    rlimit none = saved_;
    none.rlim_cur = static_cast<rlim_t>(lowest_free);
    EXPECT_EQ(::setrlimit(RLIMIT_NOFILE, &none), 0);
  }
  ~no_free_descriptor() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  no_free_descriptor(const no_free_descriptor&) = delete;
  no_free_descriptor& operator=(const no_free_descriptor&) = delete;

 private:
  rlimit saved_{};
};

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_OUT_OF_DESCRIPTORS_H_
