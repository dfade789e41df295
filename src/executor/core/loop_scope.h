// Copyright ferry authors. Internal: which pool's loop this thread runs a
// pass of (both pools: a process pool's pass, an MPI pool's turn).
//
// The loop calls out while it holds its lock: a future's callbacks, an
// observer. What they call back into the pool must know it: a future they
// poll must not run another pass of the loop, a shutdown they call cannot
// wait for the loop it is in, and the pool's last handle, dropped there,
// cannot be deleted there (pool_deleter.h).
//
//   {
//     loop_scope<pool_core> scope(this);
//     serve_once(...);
//   }
//   if (loop_scope<pool_core>::in(this)) ...
//
// One thread-local pointer per kind of core: a pass of one kind's loop may
// run a pass of the other's (a callback of an MPI pool polling a process
// pool's future), never of its own kind.
#ifndef FERRY_SRC_EXECUTOR_CORE_LOOP_SCOPE_H_
#define FERRY_SRC_EXECUTOR_CORE_LOOP_SCOPE_H_

namespace ferry::detail {

template <class Core>
class loop_scope {
 public:
  // Marks this thread as in `core`'s loop while the scope lives.
  explicit loop_scope(const Core* core) noexcept : outer_(current_) { current_ = core; }
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
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_LOOP_SCOPE_H_
