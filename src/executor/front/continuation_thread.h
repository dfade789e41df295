// Copyright ferry authors. Internal: what future_state needs of the
// continuation thread (include/executor/internal/continuation.h).
#ifndef FERRY_SRC_EXECUTOR_FRONT_CONTINUATION_THREAD_H_
#define FERRY_SRC_EXECUTOR_FRONT_CONTINUATION_THREAD_H_

namespace ferry::detail {

// Whether the calling thread is the continuation thread.
bool on_continuation_thread();

// On the continuation thread: runs the oldest queued continuation, if any,
// and says whether it ran one. A continuation that waits for a future some
// later continuation will finish calls this while it waits, so that the
// one thread cannot wait for itself.
bool run_one_continuation();

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_FRONT_CONTINUATION_THREAD_H_
