// Copyright ferry authors.
#include "mpi/doorbell_linux.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace ferry::detail::mpi {

std::uint32_t doorbell::arm() {
  sleeping.store(1, std::memory_order_seq_cst);
  return rings.load(std::memory_order_seq_cst);
}

void doorbell::sleep(std::uint32_t armed, std::chrono::microseconds timeout) {
  const auto us = timeout.count();
  const timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
  // Shared, not FUTEX_PRIVATE: the ringer is another process. EAGAIN (rung
  // since arm), EINTR and ETIMEDOUT all mean: look again.
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&rings), FUTEX_WAIT, armed, &ts, nullptr, 0);
  sleeping.store(0, std::memory_order_relaxed);
}

void doorbell::ring() {
  rings.fetch_add(1, std::memory_order_seq_cst);
  if (sleeping.load(std::memory_order_seq_cst) != 0)
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&rings), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

}  // namespace ferry::detail::mpi
