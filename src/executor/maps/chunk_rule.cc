// Copyright ferry authors.
#include "executor/maps/chunk_rule.h"

#include <algorithm>

namespace ferry::detail {

std::size_t chunk_rule::next(std::size_t last, std::size_t done, std::chrono::nanoseconds busy) const {
  const std::size_t w = std::max<std::size_t>(workers, 1);
  const std::size_t cap =
      input_size ? std::max<std::size_t>(*input_size / (4 * w), 1) : most_without_size;
  std::size_t size = std::max<std::size_t>(last, 1);
  if (done != 0 && busy.count() > 0) {
    // inputs per worker in target_chunk_time = done / w * target / busy
    const double ideal = static_cast<double>(done) / static_cast<double>(w) *
                         std::chrono::duration<double>(target_chunk_time).count() /
                         std::chrono::duration<double>(busy).count();
    const double grown = std::min(ideal, 2.0 * static_cast<double>(size));
    size = grown < 1.0 ? 1 : static_cast<std::size_t>(grown);
  }
  return std::clamp<std::size_t>(size, 1, cap);
}

}  // namespace ferry::detail
