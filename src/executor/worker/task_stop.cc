// Copyright ferry authors.
#include "executor/worker/task_stop.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <executor/this_task.h>

namespace ferry::detail {
namespace {

thread_local task_stop* this_thread_stop = nullptr;

// Requests for tasks that had not begun when they were read: kept for the
// task the pool is about to start, and a few more in case of reordering.
// Older ones are of tasks long ended.
constexpr std::size_t most_early = 16;

// How often a polling task reads the pipe: a stop is seen this late at
// most, and a task that polls in a tight loop pays one read per period.
constexpr std::chrono::milliseconds drain_period{1};

}  // namespace

void set_thread_task_stop(task_stop* stop) noexcept { this_thread_stop = stop; }

task_stop::task_stop(unique_fd pipe) : pipe_(std::move(pipe)) {
  if (pipe_) ::fcntl(pipe_.get(), F_SETFL, ::fcntl(pipe_.get(), F_GETFL) | O_NONBLOCK);
}

task_stop::~task_stop() {
  if (!watcher_.joinable()) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(quit_.get(), &one, sizeof one);
  watcher_.join();
}

// Until a task asks for a token, the thread running tasks alone touches
// this state, and begin and end, once per task, take no lock: even an
// uncontended one cost about 5% of the no-op task rate (executor_bench
// throughput). watched_ is set by that same thread before the watcher
// starts.
void task_stop::begin(std::uint64_t id) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  std::optional<mutex_lock> lock;
  if (watched_.load(std::memory_order_relaxed)) lock.emplace(mu_);
  if (current_ != 0) below_.push_back({current_, requested_.load(std::memory_order_relaxed), std::move(source_)});
  current_ = id;
  source_.reset();
  bool asked = false;
  if (!early_.empty()) {
    const auto early = std::find(early_.begin(), early_.end(), id);
    asked = early != early_.end();
    if (asked) early_.erase(early);
  }
  requested_.store(asked, std::memory_order_relaxed);
  next_drain_ = {};  // the first look reads the pipe
}

void task_stop::end() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  std::optional<mutex_lock> lock;
  if (watched_.load(std::memory_order_relaxed)) lock.emplace(mu_);
  current_ = 0;
  source_.reset();
  requested_.store(false, std::memory_order_relaxed);
  if (below_.empty()) return;
  set_aside outer = std::move(below_.back());
  below_.pop_back();
  current_ = outer.id;
  source_ = std::move(outer.source);
  // Asked while it was set aside: the request was kept as an early one.
  const auto early = std::find(early_.begin(), early_.end(), outer.id);
  const bool asked = outer.requested || early != early_.end();
  if (early != early_.end()) early_.erase(early);
  requested_.store(asked, std::memory_order_relaxed);
  if (asked && source_ && !source_->stop_requested()) {
    std::stop_source to_stop = *source_;
    lock.reset();
    to_stop.request_stop();
  }
  next_drain_ = {};
}

std::optional<std::stop_source> task_stop::drain() {
  std::optional<std::stop_source> to_stop;
  std::uint64_t ids[32];
  for (;;) {
    const ssize_t n = ::read(pipe_.get(), ids, sizeof ids);
    if (n <= 0) break;
    for (std::size_t i = 0; i < static_cast<std::size_t>(n) / sizeof ids[0]; ++i) {
      if (ids[i] == current_ && current_ != 0) {
        requested_.store(true, std::memory_order_relaxed);
        if (source_) to_stop = *source_;
      } else {
        if (early_.size() == most_early) early_.erase(early_.begin());
        early_.push_back(ids[i]);
      }
    }
    if (static_cast<std::size_t>(n) < sizeof ids) break;
  }
  return to_stop;
}

void task_stop::drain_and_stop() {
  std::optional<std::stop_source> to_stop;
  {
    mutex_lock lock(mu_);
    to_stop = drain();
  }
  if (to_stop) to_stop->request_stop();  // runs the task's stop callbacks, here
}

bool task_stop::stop_requested() {
  if (requested_.load(std::memory_order_relaxed)) return true;
  if (!pipe_ || watched_.load(std::memory_order_relaxed)) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_drain_) return false;
  next_drain_ = now + drain_period;
  drain_and_stop();
  return requested_.load(std::memory_order_relaxed);
}

std::stop_token task_stop::token() {
  std::stop_token token;
  bool start_watcher = false;
  std::optional<std::stop_source> to_stop;
  {
    mutex_lock lock(mu_);
    if (!source_) {
      source_.emplace();
      if (requested_.load(std::memory_order_relaxed)) source_->request_stop();
    }
    token = source_->get_token();
    start_watcher = pipe_ && !watcher_.joinable();
    if (start_watcher) {
      quit_ = unique_fd(::eventfd(0, EFD_CLOEXEC));
      // A request already written is read now, for this token.
      to_stop = drain();
    }
  }
  if (to_stop) to_stop->request_stop();
  if (start_watcher && quit_) {
    watched_.store(true);
    watcher_ = std::thread([this] {
      for (;;) {
        pollfd fds[2] = {{pipe_.get(), POLLIN, 0}, {quit_.get(), POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
        if (fds[1].revents != 0 || (fds[0].revents & (POLLHUP | POLLERR)) != 0) return;
        if (fds[0].revents != 0) drain_and_stop();
      }
    });
  }
  return token;
}

}  // namespace ferry::detail

namespace ferry::this_task {

bool stop_requested() noexcept {
  detail::task_stop* s = detail::this_thread_stop;
  return s != nullptr && s->stop_requested();
}

std::stop_token get_stop_token() {
  detail::task_stop* s = detail::this_thread_stop;
  return s != nullptr ? s->token() : std::stop_token();
}

}  // namespace ferry::this_task
