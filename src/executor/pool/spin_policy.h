// Copyright ferry authors. Internal: when a waiting side of a pool polls
// for its next message before it sleeps (pool_options::spin), for the
// manager loop (pool_core.cc) and a worker's loop (worker_loop.cc) alike.
//
// Why adaptive: polling pays only while messages come within the spin
// time; a side whose last wait was longer (an idle pool, long tasks) goes
// straight to sleep, so spinning never costs a core for nothing for long.
//
// Thread-safety: none; each waiting thread owns its own.
#ifndef FERRY_SRC_EXECUTOR_POOL_SPIN_POLICY_H_
#define FERRY_SRC_EXECUTOR_POOL_SPIN_POLICY_H_

#include <chrono>

namespace ferry::detail {

class spin_policy {
 public:
  using clock = std::chrono::steady_clock;

  explicit spin_policy(std::chrono::microseconds spin) : spin_(spin) {}

  // How long to poll before the next wait: the spin time while the
  // previous wait ended within twice it, else zero.
  clock::duration budget() const {
    if (spin_ <= clock::duration::zero() || last_wait_ > 2 * spin_) return clock::duration::zero();
    return spin_;
  }
  // How long the wait that just ended took, polling and sleeping.
  void waited(clock::duration d) { last_wait_ = d; }

 private:
  std::chrono::microseconds spin_;
  clock::duration last_wait_{};
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_SPIN_POLICY_H_
