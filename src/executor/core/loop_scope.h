// Copyright ferry authors. Internal: which pool's loop this thread runs a
// pass of (both pools: a process pool's pass, an MPI pool's turn).
//
// The loop calls out while it holds its lock: a future's callbacks, an
// observer. What they call back into the pool must know it: a future they
// poll must not run another pass of the loop, a shutdown they call cannot
// wait for the loop it is in, the pool's last handle, dropped there,
// cannot be deleted there (pool_deleter.h), and a wait for one of the
// pool's futures there could never end (the scope marks the pool's
// stop_inbox, which every future of the pool asks: stop_target::finishes_here).
//
//   {
//     loop_scope<pool_core> scope(this, stops_.get());
//     serve_once(...);
//   }
//   if (loop_scope<pool_core>::in(this)) ...
//
// One thread-local pointer per kind of core: a pass of one kind's loop may
// run a pass of the other's (a callback of an MPI pool polling a process
// pool's future), never of its own kind.
#ifndef FERRY_SRC_EXECUTOR_CORE_LOOP_SCOPE_H_
#define FERRY_SRC_EXECUTOR_CORE_LOOP_SCOPE_H_

#include "executor/core/stop_inbox.h"

namespace ferry::detail {

template <class Core>
class loop_scope {
 public:
  // Marks this thread as in `core`'s loop, whose futures' stop target is
  // `inbox`, while the scope lives.
  loop_scope(const Core* core, const stop_inbox* inbox) noexcept : outer_(current_), mark_(inbox) {
    current_ = core;
  }
  ~loop_scope() { current_ = outer_; }
  loop_scope(const loop_scope&) = delete;
  loop_scope& operator=(const loop_scope&) = delete;

  // Whether this thread is in `core`'s loop.
  static bool in(const Core* core) noexcept { return current_ == core; }
  // Whether it is in the loop of any core of this kind.
  static bool in_any() noexcept { return current_ != nullptr; }

 private:
  static inline thread_local const Core* current_ = nullptr;
  const Core* outer_;
  stop_inbox::pass_mark mark_;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_LOOP_SCOPE_H_
