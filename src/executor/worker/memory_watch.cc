// Copyright ferry authors.
#include "executor/worker/memory_watch.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "executor/pool/process_linux.h"
#include "executor/wire/protocol.h"

namespace ferry::detail {

memory_watch::memory_watch(std::uint64_t limit) : limit_(limit) {
  if (limit_ != 0) thread_ = std::thread([this] { watch(); });
}

memory_watch::~memory_watch() {
  if (!thread_.joinable()) return;
  {
    mutex_lock lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void memory_watch::task_started() {
  if (limit_ == 0) return;
  mutex_lock lock(mu_);
  start_ = resident_bytes();
  running_ = true;
  cv_.notify_one();
}

void memory_watch::task_finished() {
  if (limit_ == 0) return;
  mutex_lock lock(mu_);
  running_ = false;
}

void memory_watch::watch() {
  mutex_lock lock(mu_);
  while (!stop_) {
    if (!running_) {
      cv_.wait(lock.native());
      continue;
    }
    cv_.wait_for(lock.native(), std::chrono::milliseconds(10));
    if (running_ && resident_bytes() > start_ + limit_) {
      std::fflush(nullptr);
      std::_Exit(protocol::task_memory_status);
    }
  }
}

}  // namespace ferry::detail
