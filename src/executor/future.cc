// Copyright ferry authors.
#include "executor/future.h"

#include <cereal/types/string.hpp>

#include "protocol.h"

namespace ferry::detail {

result_bytes::~result_bytes() = default;

future_state::future_state() = default;
future_state::~future_state() = default;

bool future_state::start() {
  std::lock_guard lock(mu_);
  if (phase_ != phase::pending) return false;
  phase_ = phase::running;
  return true;
}

bool future_state::cancel() {
  std::unique_lock lock(mu_);
  if (phase_ != phase::pending) return false;
  error_ = std::make_exception_ptr(cancelled_error());
  complete(lock);
  return true;
}

void future_state::finish(std::shared_ptr<const result_bytes> bytes) {
  std::unique_lock lock(mu_);
  if (phase_ == phase::finished) return;
  bytes_ = std::move(bytes);
  complete(lock);
}

void future_state::fail(std::exception_ptr error) {
  std::unique_lock lock(mu_);
  if (phase_ == phase::finished) return;
  error_ = std::move(error);
  complete(lock);
}

void future_state::complete(std::unique_lock<std::mutex>& lock) {
  phase_ = phase::finished;
  std::vector<std::function<void()>> callbacks = std::move(callbacks_);
  cv_.notify_all();
  lock.unlock();
  for (auto& cb : callbacks) cb();
}

void future_state::wait() const {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return phase_ == phase::finished; });
}

bool future_state::wait_until(std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(mu_);
  return cv_.wait_until(lock, deadline, [this] { return phase_ == phase::finished; });
}

bool future_state::ready() const {
  std::lock_guard lock(mu_);
  return phase_ == phase::finished;
}

void future_state::on_done(std::function<void()> cb) {
  std::unique_lock lock(mu_);
  if (phase_ != phase::finished) {
    callbacks_.push_back(std::move(cb));
    return;
  }
  lock.unlock();
  cb();
}

std::exception_ptr future_state::error() const {
  std::lock_guard lock(mu_);
  return error_;
}

std::shared_ptr<const result_bytes> future_state::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

std::vector<std::string_view> split_items(const future_state& state, std::uint32_t expected) {
  state.wait();
  if (std::exception_ptr e = state.error()) std::rethrow_exception(e);
  const std::shared_ptr<const result_bytes> bytes = state.bytes();
  input_archive ar(bytes->view());
  std::uint8_t whole;
  ar(whole);
  if (whole != 0) rethrow_task_exception(ar);
  std::uint32_t count;
  ar(count);
  if (count != expected)
    throw error("ferry: a result holds " + std::to_string(count) + " items, " +
                std::to_string(expected) + " were sent");
  std::vector<std::string_view> items;
  items.reserve(count);
  const std::string_view all = bytes->view();
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t length = ar.load_count();
    items.push_back(all.substr(ar.offset(), length));
    ar.skip(length);
  }
  return items;
}

}  // namespace ferry::detail
