// Copyright ferry authors. Internal: how many inputs a map sends in one
// message when map_options::chunksize is 0. The rule is documented in
// docs/api/executor.md ("Choosing the chunk size").
//
// Thread-safety: none needed; a pure function of its arguments.
#ifndef FERRY_SRC_EXECUTOR_MAPS_CHUNK_RULE_H_
#define FERRY_SRC_EXECUTOR_MAPS_CHUNK_RULE_H_

#include <chrono>
#include <cstddef>
#include <optional>

namespace ferry::detail {

struct chunk_rule {
  // A chunk should keep a worker busy about this long: its message's
  // overhead (tens of microseconds, docs/performance.md) is then a few per
  // cent at most, and the last chunks leave workers idle only this long.
  static constexpr std::chrono::microseconds target_chunk_time{5000};
  // The most inputs in one chunk when the input's size is unknown.
  static constexpr std::size_t most_without_size = 4096;

  std::size_t workers = 1;
  std::optional<std::size_t> input_size{};  // known for a sized range

  // The size of the next chunk, after one of `last` inputs, when `done`
  // inputs finished in the `busy` time since the map's first chunk
  // finished (so that starting workers does not count): about
  // target_chunk_time's worth of inputs at that rate per worker, at most
  // twice `last` (the rate measured on small chunks understates what
  // larger ones reach), at most a quarter of a worker's even share of a
  // known input; `last` while nothing is measured yet. Never 0.
  std::size_t next(std::size_t last, std::size_t done, std::chrono::nanoseconds busy) const;
  // The first chunk's size: 1, so that the rate is measured before inputs
  // are committed to large chunks.
  static constexpr std::size_t first = 1;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_MAPS_CHUNK_RULE_H_
