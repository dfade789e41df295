// Copyright ferry authors.
//
// The shared front of every pool (executor/internal/pool_front.h).
#include <executor/internal/pool_front.h>

#include <string>

#include <executor/errors.h>
#include "executor/wire/protocol.h"

namespace ferry::detail {

task_queue::~task_queue() = default;

pool_front::pool_front(std::shared_ptr<task_queue> queue) : queue_(std::move(queue)) {}
pool_front::~pool_front() = default;
pool_front::pool_front(const pool_front&) = default;
pool_front& pool_front::operator=(const pool_front&) = default;
pool_front::pool_front(pool_front&&) noexcept = default;
pool_front& pool_front::operator=(pool_front&&) noexcept = default;

void pool_front::shutdown(shutdown_options how) { queue("shutdown")->shutdown(how); }
bool pool_front::is_shutdown() const { return queue("is_shutdown")->is_shutdown(); }

void throw_no_pool(const char* call) {
  throw error(std::string("ferry: ") + call +
              " on a pool handle without a pool (moved from); use the handle it was moved to, or assign "
              "it a pool");
}

std::shared_ptr<future_state> empty_call_state() {
  auto state = make_future_state();
  state->fail(std::make_exception_ptr(protocol::empty_function_error()));
  return state;
}

}  // namespace ferry::detail
