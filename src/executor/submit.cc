// Copyright ferry authors.
//
// The shared front of every pool (executor/internal/pool_front.h), and the
// encoding of a task for any of them.
#include "executor/internal/pool_front.h"

#include "protocol.h"
#include "submit_encoding.h"
#include "task_exception.h"

namespace ferry::detail {

task_queue::~task_queue() = default;

std::variant<protocol::encoded_task, std::shared_ptr<future_state>> encode_or_fail(
    const task_writer& task, std::uint32_t count, bool list_modules) {
  try {
    return protocol::encode_task(task, count, list_modules);
  } catch (...) {
    return failed_state(current_as_serialization_error(serialization_error::phase::saving_task));
  }
}

pool_front::pool_front(std::shared_ptr<task_queue> queue) : queue_(std::move(queue)) {}
pool_front::~pool_front() = default;
pool_front::pool_front(const pool_front&) = default;
pool_front& pool_front::operator=(const pool_front&) = default;
pool_front::pool_front(pool_front&&) noexcept = default;
pool_front& pool_front::operator=(pool_front&&) noexcept = default;

void pool_front::shutdown(shutdown_options how) { queue_->shutdown(how); }
bool pool_front::is_shutdown() const { return queue_->is_shutdown(); }

}  // namespace ferry::detail
