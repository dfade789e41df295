// Copyright ferry authors. Internal: a worker's heap, which keeps the
// memory of large values from task to task and gives it back once the
// worker waits idle.
//
// Why keep: glibc serves a block of 32 MiB or more with its own mmap and
// unmaps it when freed, so each task with a large argument or result (a
// 64 MiB vector) paid the page faults and the clearing of fresh pages
// again, for decoding the argument and for encoding the result
// (docs/performance.md, the 64 MiB row). Kept in the heap, the next task
// reuses pages already mapped.
// Why give back: kept for good, a worker that once ran a task on a 2 GiB
// value held that memory for as long as it lived, idle or not (until
// pool_options::idle_timeout retired it, 300 s by default). Once the
// worker has waited idle_after for its next task, the free memory goes
// back to the system (malloc_trim); a steady stream of large tasks never
// waits that long and keeps its pages.
//
// A worker started by fork serves on the thread that forked it, whose
// arena glibc grows with a mapping of its own for each large block: such
// blocks leave when freed there, kept_heap or not (and its heap's top
// does not move, so may_hold_much stays false).
//
// Under a memory limit (pool_options::max_worker_memory) nothing is kept:
// the worker would retire for memory it does not use. Only in a worker's
// own process: a worker thread in the pool's process leaves the program's
// allocator as it is.
//
// Thread-safety: the worker's serving thread alone calls it.
#ifndef FERRY_SRC_EXECUTOR_WORKER_KEPT_HEAP_H_
#define FERRY_SRC_EXECUTOR_WORKER_KEPT_HEAP_H_

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace ferry::detail {

class kept_heap {
 public:
  static constexpr std::chrono::milliseconds idle_after{1000};
  // Growth of the heap since it last gave memory back that makes giving
  // back worth a call.
  static constexpr std::size_t worth_giving_back = std::size_t{32} << 20;

  // From now on, this process keeps freed blocks of any size in its heap.
  kept_heap();
  kept_heap(const kept_heap&) = delete;
  kept_heap& operator=(const kept_heap&) = delete;

  // Whether the heap grew by worth_giving_back or more since the last
  // give_back: a cheap test (the heap's top, without a system call).
  bool may_hold_much() const;
  // Returns the heap's free memory to the system.
  void give_back();

 private:
  std::uintptr_t top_;  // the heap's end after the last give_back
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WORKER_KEPT_HEAP_H_
