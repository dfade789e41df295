// Copyright ferry authors.
//
// The shared front of every pool (executor/internal/pool_front.h).
#include <executor/internal/pool_front.h>


namespace ferry::detail {

task_queue::~task_queue() = default;

pool_front::pool_front(std::shared_ptr<task_queue> queue) : queue_(std::move(queue)) {}
pool_front::~pool_front() = default;
pool_front::pool_front(const pool_front&) = default;
pool_front& pool_front::operator=(const pool_front&) = default;
pool_front::pool_front(pool_front&&) noexcept = default;
pool_front& pool_front::operator=(pool_front&&) noexcept = default;

void pool_front::shutdown(shutdown_options how) { queue_->shutdown(how); }
bool pool_front::is_shutdown() const { return queue_->is_shutdown(); }

}  // namespace ferry::detail
