// Copyright ferry authors. Internal: how the archives treat the memory of
// a large value (a 64 MiB string or vector), where fresh pages, not the
// copy, set the speed.
#ifndef FERRY_SERIALIZE_INTERNAL_LARGE_BUFFERS_H_
#define FERRY_SERIALIZE_INTERNAL_LARGE_BUFFERS_H_

#include <cstddef>

#include "serialize/internal/config.h"

namespace ferry::detail {

// From this size on, a buffer the archives fill is offered huge pages.
inline constexpr std::size_t large_buffer_bytes = std::size_t{4} << 20;
// What an output archive reserves beyond a large value it writes.
inline constexpr std::size_t room_after_large_value = std::size_t{64} << 10;

// Asks the kernel to back the whole 2 MiB pages inside [data, data + size)
// with transparent huge pages (madvise MADV_HUGEPAGE), and faults in the
// 4 KiB pages at either end outside them in one call each
// (MADV_POPULATE_WRITE): the caller must be about to write the whole
// range. Only hints: where the kernel was set to "never", or the range
// holds no whole huge page, nothing changes. Why: filling fresh memory
// costs a page fault per page, one per 2 MiB instead of one per 4 KiB
// (docs/performance.md, the 64 MiB row).
FERRY_SERIALIZE_EXPORT void advise_huge_pages(void* data, std::size_t size) noexcept;

}  // namespace ferry::detail

#endif  // FERRY_SERIALIZE_INTERNAL_LARGE_BUFFERS_H_
