// Copyright ferry authors. Internal: how the ranks of one host wake each
// other (doorbell_linux.cc).
//
// OpenMPI's shared-memory transport has no descriptor to sleep on: a rank
// that waits for a message must poll. Polling by sched_yield is fast on a
// quiet machine and slow on a loaded one (a yield to a CPU-bound process
// waits out its time slice, milliseconds), and short sleeps are slow on
// both (docs/performance.md). So a rank that has polled for a while
// without news sleeps on a futex in memory its host's ranks share, and a
// rank that sends it a message rings it: a woken thread preempts a
// CPU-bound one, a yielding thread does not. A rank on another host cannot
// ring: sleeps are bounded by the caller's timeout, which keeps polling
// such ranks as before.
//
// Protocol, so that no ring is lost: the sleeper calls arm(), then looks
// once more for work (MPI_Iprobe, its queue), then sleep(); a ringer sends
// its message first, then ring(). A ring between arm() and sleep() makes
// sleep() return at once.
//
// Thread-safety: ring() from any thread of any rank of the host; arm() and
// sleep() from the one thread that waits on the bell.
#ifndef FERRY_SRC_MPI_DOORBELL_LINUX_H_
#define FERRY_SRC_MPI_DOORBELL_LINUX_H_

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ferry::detail::mpi {

struct alignas(64) doorbell {
  std::atomic<std::uint32_t> rings{0};  // the futex word
  std::atomic<std::uint32_t> sleeping{0};

  // Returns what sleep() is given.
  std::uint32_t arm();
  // Until rung after arm(), or `timeout`; then no longer armed.
  void sleep(std::uint32_t armed, std::chrono::microseconds timeout);
  // No longer armed, without sleeping: there was work after all.
  void disarm() { sleeping.store(0, std::memory_order_relaxed); }
  // Wakes the sleeper, if one is armed: a system call only then.
  void ring();

  // The sleeper's side of the protocol in one call, for every rank that
  // waits: arms, looks once more for news (`news()`: what came between the
  // caller's last look and arm() rang before it), and sleeps until rung or
  // `timeout` only if there was none.
  template <class News>
  void sleep_unless(News&& news, std::chrono::microseconds timeout) {
    const std::uint32_t armed = arm();
    if (news()) {
      disarm();
      return;
    }
    sleep(armed, timeout);
  }
};
static_assert(sizeof(doorbell) == 64 && std::atomic<std::uint32_t>::is_always_lock_free);

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_DOORBELL_LINUX_H_
