// Copyright ferry authors.
#include <serialize/internal/large_buffers.h>

#include <sys/mman.h>

#include <cstdint>

namespace ferry::detail {

void advise_huge_pages(void* data, std::size_t size) noexcept {
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
  const std::uintptr_t last = (begin + size) & ~(huge - 1);
  if (last <= first) return;
  // Failure (EINVAL where THP is not built in) leaves the pages as they were.
  (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace ferry::detail
