// Copyright ferry authors.
#include "executor/internal/future_state.h"

#include <algorithm>
#include <thread>

#include "executor/errors.h"

namespace ferry::detail {

namespace {

// How long a wait yields before it blocks. A small task's result often
// arrives within tens of microseconds (docs/performance.md), about what
// waking a blocked thread on another CPU costs on a small virtual machine;
// a longer wait pays this, then the wake-up.
constexpr std::chrono::microseconds spin_before_blocking{50};

}  // namespace

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

void future_state::finish(std::shared_ptr<const message_body> result) {
  std::unique_lock lock(mu_);
  if (phase_ == phase::finished) return;
  result_ = std::move(result);
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

bool future_state::spin_until(std::chrono::steady_clock::time_point deadline) const {
  const auto until = std::min(deadline, std::chrono::steady_clock::now() + spin_before_blocking);
  while (std::chrono::steady_clock::now() < until) {
    if (ready()) return true;
    std::this_thread::yield();
  }
  return false;
}

void future_state::wait() const {
  if (spin_until(std::chrono::steady_clock::time_point::max())) return;
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return phase_ == phase::finished; });
}

bool future_state::wait_until(std::chrono::steady_clock::time_point deadline) const {
  if (spin_until(deadline)) return true;
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

std::shared_ptr<const message_body> future_state::result() const {
  std::lock_guard lock(mu_);
  return result_;
}

}  // namespace ferry::detail
