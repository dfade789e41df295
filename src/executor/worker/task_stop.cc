// Copyright ferry authors.
#include "executor/worker/task_stop.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <executor/this_task.h>

namespace ferry::detail {
namespace {

thread_local task_stop* this_thread_stop = nullptr;

// Requests for tasks that had not begun when they came: kept for the task
// the pool is about to start, and a few more in case of reordering. Older
// ones are of tasks long ended.
constexpr std::size_t most_early = 16;

}  // namespace

void set_thread_task_stop(task_stop* stop) noexcept { this_thread_stop = stop; }

void task_stop::begin(std::uint64_t id) {
  mutex_lock lock(mu_);
  current_ = id;
  source_.reset();
  const auto early = std::find(early_.begin(), early_.end(), id);
  const bool asked = early != early_.end();
  if (asked) early_.erase(early);
  requested_.store(asked, std::memory_order_relaxed);
}

void task_stop::end() {
  mutex_lock lock(mu_);
  current_ = 0;
  source_.reset();
  requested_.store(false, std::memory_order_relaxed);
}

void task_stop::request(std::uint64_t id) {
  mutex_lock lock(mu_);
  if (id != current_) {
    if (early_.size() == most_early) early_.erase(early_.begin());
    early_.push_back(id);
    return;
  }
  requested_.store(true, std::memory_order_relaxed);
  if (source_) source_->request_stop();  // runs the task's stop callbacks, on this thread
}

std::stop_token task_stop::token() {
  mutex_lock lock(mu_);
  if (!source_) {
    source_.emplace();
    if (requested_.load(std::memory_order_relaxed)) source_->request_stop();
  }
  return source_->get_token();
}

stop_listener::stop_listener(unique_fd pipe, task_stop& stop)
    : pipe_(std::move(pipe)), quit_(::eventfd(0, EFD_CLOEXEC)) {
  thread_ = std::thread([this, &stop] {
    for (;;) {
      pollfd fds[2] = {{pipe_.get(), POLLIN, 0}, {quit_.get(), POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      std::uint64_t id = 0;
      const ssize_t n = ::read(pipe_.get(), &id, sizeof id);
      if (n == static_cast<ssize_t>(sizeof id)) {
        stop.request(id);
      } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        return;  // the pool is gone
      }
    }
  });
}

stop_listener::~stop_listener() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(quit_.get(), &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

}  // namespace ferry::detail

namespace ferry::this_task {

bool stop_requested() noexcept {
  const detail::task_stop* s = detail::this_thread_stop;
  return s != nullptr && s->stop_requested();
}

std::stop_token get_stop_token() {
  detail::task_stop* s = detail::this_thread_stop;
  return s != nullptr ? s->token() : std::stop_token();
}

}  // namespace ferry::this_task
