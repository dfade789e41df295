// Copyright ferry authors.
#include "executor/worker/kept_heap.h"

#include <malloc.h>
#include <unistd.h>

namespace ferry::detail {
namespace {

std::uintptr_t heap_top() { return reinterpret_cast<std::uintptr_t>(::sbrk(0)); }

}  // namespace

kept_heap::kept_heap() : top_(heap_top()) {
  // No block of its own mapping: large ones come from the heap too, and a
  // free top of the heap is not trimmed below 1 GiB.
  ::mallopt(M_MMAP_MAX, 0);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

bool kept_heap::may_hold_much() const { return heap_top() >= top_ + worth_giving_back; }

void kept_heap::give_back() {
  ::malloc_trim(0);
  top_ = heap_top();
}

}  // namespace ferry::detail
