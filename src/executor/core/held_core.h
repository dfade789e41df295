// Copyright ferry authors. Internal: what a pool handle (process_pool,
// mpi_pool) holds, or, for a handle moved from, which holds nothing, the
// ferry::error naming the call made on it (detail::throw_no_pool, which
// pool_front's calls give too).
#ifndef FERRY_SRC_EXECUTOR_CORE_HELD_CORE_H_
#define FERRY_SRC_EXECUTOR_CORE_HELD_CORE_H_

#include <memory>

#include <executor/internal/submit.h>

namespace ferry::detail {

template <class Core>
Core& held_core(const std::shared_ptr<Core>& core, const char* call) {
  if (core == nullptr) throw_no_pool(call);
  return *core;
}

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_HELD_CORE_H_
