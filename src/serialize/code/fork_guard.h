// Copyright ferry authors. Internal: ferry's locks across fork().
//
// A process that forks while another thread holds one of ferry's locks would
// leave the child with a lock nobody will release. Each lock-holding part
// offers hold_*_for_fork: `acquire` takes its locks before fork(), `release`
// gives them back afterwards, in the parent and in the child alike.
// fork_guard.cc does this around every fork(), in one order (the order a
// module load nests the locks), through pthread_atfork.
//
// Every lock involved is a plain std::mutex (ferry::detail::mutex, or
// reentrant_mutex, built on one): glibc's read-write and recursive mutexes record their owner's thread
// id, which the child's thread does not have, so the child could not unlock
// them.
#ifndef FERRY_SRC_SERIALIZE_CODE_FORK_GUARD_H_
#define FERRY_SRC_SERIALIZE_CODE_FORK_GUARD_H_

#include <atomic>
#include <cstddef>
#include <mutex>
#include <thread>

#include <absl/base/thread_annotations.h>

namespace ferry::detail {

enum class fork_phase { acquire, release };

void hold_modules_for_fork(fork_phase phase);   // module loads, then module records
void hold_loaded_modules_for_fork(fork_phase phase);  // walks of the loaded objects
void hold_policy_for_fork(fork_phase phase);
void hold_registry_for_fork(fork_phase phase);
void hold_verified_for_fork(fork_phase phase);  // function pointers already checked
void hold_build_id_index_for_fork(fork_phase phase);

// Takes or lets go of mu across a fork: the lock is held between two calls,
// which the compiler's thread-safety analysis, working a function at a time,
// cannot follow.
template <class Mutex>
void apply_fork_phase(Mutex& mu, fork_phase phase) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (phase == fork_phase::acquire)
    mu.lock();
  else
    mu.unlock();
}

// A mutex the holding thread may lock again (a module's initializer may load
// another module). std::this_thread::get_id() is the same in a forked child
// as in the thread that forked, so the child can release it.
class reentrant_mutex {
 public:
  void lock() {
    if (owner_.load(std::memory_order_relaxed) == std::this_thread::get_id()) {
      ++depth_;
      return;
    }
    mu_.lock();
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    depth_ = 1;
  }
  void unlock() {
    if (--depth_ != 0) return;
    owner_.store(std::thread::id(), std::memory_order_relaxed);
    mu_.unlock();
  }

 private:
  std::mutex mu_;
  std::atomic<std::thread::id> owner_{};
  std::size_t depth_ = 0;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_CODE_FORK_GUARD_H_
