// Copyright ferry authors. Internal: ferry's locks across fork().
//
// A process that forks while another thread holds one of ferry's locks would
// leave the child with a lock nobody will release. Each lock-holding part
// offers hold_*_for_fork: `acquire` takes its locks before fork, `release`
// gives them back in the parent, and `reset` makes fresh ones in the child
// (glibc's read-write and recursive locks record their owner's thread id,
// which the child's only thread does not have, so they cannot be unlocked
// there). fork_guard.cc does this around every fork(), in one order (the
// order a module load nests the locks), through pthread_atfork.
#ifndef FERRY_SRC_SERIALIZE_FORK_GUARD_H_
#define FERRY_SRC_SERIALIZE_FORK_GUARD_H_

#include <new>

namespace ferry::detail {

enum class fork_phase { acquire, release, reset };

void hold_modules_for_fork(fork_phase phase);   // module loads, then module records
void hold_policy_for_fork(fork_phase phase);
void hold_registry_for_fork(fork_phase phase);
void hold_verified_for_fork(fork_phase phase);  // function pointers already checked

// Applies a phase to one lock.
template <class Mutex>
void apply_fork_phase(Mutex& mu, fork_phase phase) {
  switch (phase) {
    case fork_phase::acquire:
      mu.lock();
      break;
    case fork_phase::release:
      mu.unlock();
      break;
    case fork_phase::reset:
      // The child has one thread; nothing else can see this lock now.
      mu.~Mutex();
      new (&mu) Mutex();
      break;
  }
}

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_FORK_GUARD_H_
