// Copyright ferry authors.
#include <serialize/internal/large_buffers.h>

#include <sys/mman.h>

#include <cstdint>

namespace ferry::detail {
namespace {

constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
constexpr std::uintptr_t page = 4096;

// Faults in [from, to), whole 4 KiB pages, in one call. Failure (EINVAL
// before Linux 5.14) leaves them to fault in one by one as they are written.
void populate(std::uintptr_t from, std::uintptr_t to) noexcept {
  from &= ~(page - 1);
  to = (to + page - 1) & ~(page - 1);
  if (to > from) (void)::madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
}

}  // namespace

void advise_huge_pages(void* data, std::size_t size) noexcept {
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t end = begin + size;
  const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
  const std::uintptr_t last = end & ~(huge - 1);
  if (last <= first) return;
  // Failure (EINVAL where THP is not built in) leaves the pages as they were.
  (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  // The ends that no huge page covers, up to 2 MiB each of 4 KiB pages
  // that the caller is about to write: a fault per page cost more than
  // the huge pages' faults together (docs/performance.md, the 64 MiB row).
  populate(begin, first);
  populate(last, end);
}

}  // namespace ferry::detail
