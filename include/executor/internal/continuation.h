// Copyright ferry authors. Internal: the thread that runs continuations
// (future::then, a coroutine resumed by co_await), for the templates of
// future.h and compose.h.
//
// One thread per process, started on first use, runs them in the order they
// were queued. It is never a pool's manager thread or an MPI progress
// thread, so a slow continuation delays other continuations, never a pool.
#ifndef FERRY_EXECUTOR_INTERNAL_CONTINUATION_H_
#define FERRY_EXECUTOR_INTERNAL_CONTINUATION_H_

#include <functional>

#include "executor/internal/config.h"

namespace ferry::detail {

// Queues fn to run on the continuation thread. fn must not throw (what it
// runs catches and stores into a future). Any thread.
FERRY_EXECUTOR_EXPORT void run_continuation(std::function<void()> fn);

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_CONTINUATION_H_
