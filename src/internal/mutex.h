// Copyright ferry authors. Internal: std::mutex as clang's thread-safety
// analysis sees it (-Wthread-safety, the clang stage of .ci/run), with
// abseil's annotations. A member a mutex guards is declared
// ABSL_GUARDED_BY(mu_), a function that needs it held
// ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_), and the compiler checks every use.
//
// Why std::mutex beneath and not absl::Mutex: ferry's locks are taken
// around fork() and released in the child (src/serialize/code/fork_guard.h),
// and waits pair them with std::condition_variable.
#ifndef FERRY_SRC_INTERNAL_MUTEX_H_
#define FERRY_SRC_INTERNAL_MUTEX_H_

#include <absl/base/thread_annotations.h>

#include <mutex>

namespace ferry::detail {

class ABSL_LOCKABLE mutex {
 public:
  void lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  bool try_lock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) { return mu_.try_lock(); }
  std::mutex& native() { return mu_; }

 private:
  std::mutex mu_;
};

// Holds a mutex for its scope; unlock() and lock() let go of it and take it
// again inside the scope, and native() is the std::unique_lock that a
// std::condition_variable waits with.
class ABSL_SCOPED_LOCKABLE mutex_lock {
 public:
  explicit mutex_lock(mutex& mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : lock_(mu.native()) {}
  ~mutex_lock() ABSL_UNLOCK_FUNCTION() {}
  mutex_lock(const mutex_lock&) = delete;
  mutex_lock& operator=(const mutex_lock&) = delete;

  void unlock() ABSL_UNLOCK_FUNCTION() { lock_.unlock(); }
  void lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { lock_.lock(); }
  std::unique_lock<std::mutex>& native() { return lock_; }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_INTERNAL_MUTEX_H_
