// Copyright ferry authors.
#include <executor/nested_pool.h>

#include <executor/errors.h>
#include "executor/worker/task_server.h"

namespace ferry {

nested_pool::nested_pool(std::shared_ptr<detail::task_queue> queue) : pool_front(std::move(queue)) {}
nested_pool::~nested_pool() = default;
nested_pool::nested_pool(const nested_pool&) = default;
nested_pool& nested_pool::operator=(const nested_pool&) = default;

nested_pool this_task::pool() {
  std::shared_ptr<detail::task_queue> queue = detail::this_thread_nested_queue();
  if (!queue)
    throw error("ferry: this_task::pool() was called outside a task; only a task running in a pool's worker "
                "can submit to that pool (use the pool itself elsewhere)");
  return nested_pool(std::move(queue));
}

}  // namespace ferry
