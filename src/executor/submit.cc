// Copyright ferry authors.
#include "executor/internal/submit.h"

#include "pool_core.h"
#include "protocol.h"
#include "task_exception.h"

namespace ferry::detail {

std::shared_ptr<future_state> submit_task(pool_core& core, const task_writer& task,
                                          std::uint32_t count) {
  protocol::encoded_task encoded;
  try {
    encoded = protocol::encode_task(task, count);
  } catch (...) {
    return failed_state(current_as_serialization_error(serialization_error::phase::saving_task));
  }
  return core.submit(std::move(encoded));
}

}  // namespace ferry::detail
