// Copyright ferry authors. Internal: the engine under map, map_ordered and
// map_unordered of both pools. The templates of pool_front.h make a
// chunk_source that encodes the next inputs; map_window decides how many
// inputs go in a chunk and how many chunks are out at once, and hands the
// finished ones to ordered_results / unordered_results.
//
// Thread-safety: a map_window belongs to the thread iterating its results.
#ifndef FERRY_EXECUTOR_INTERNAL_MAP_WINDOW_H_
#define FERRY_EXECUTOR_INTERNAL_MAP_WINDOW_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "executor/internal/config.h"
#include "executor/internal/future_state.h"
#include "executor/map_options.h"

namespace ferry::detail {

// Reads the next inputs of a map from the range it holds and submits them
// as one task. Lives inside the map_window that calls it.
class chunk_source {
 public:
  virtual ~chunk_source() = default;
  // Submits the next at most `most` inputs as one task; returns its state
  // and how many inputs it took (0 at the input's end, state null then).
  // Throws what the input's iterator throws.
  struct submitted {
    std::shared_ptr<future_state> state;
    std::uint32_t count = 0;
  };
  virtual submitted next(std::uint32_t most) = 0;
};

class FERRY_EXECUTOR_EXPORT map_window {
 public:
  // Sends the first chunks at once (as many as the window allows);
  // options.timeout counts from here. `workers`: the pool's most workers.
  // Throws what the input's iterator throws, having cancelled what it sent.
  map_window(std::unique_ptr<chunk_source> source, const map_options& options, std::size_t workers,
             std::optional<std::size_t> input_size, bool in_input_order);
  // Cancels the chunks not yet handed out (those running finish; their
  // results are dropped).
  ~map_window();
  map_window(const map_window&) = delete;
  map_window& operator=(const map_window&) = delete;

  struct finished {
    std::shared_ptr<future_state> state;
    std::uint32_t count = 0;
    std::size_t first_index = 0;  // the input index of its first item
  };
  // The next finished chunk: the next in input order, or whichever finished
  // first; nullopt once every input's chunk was handed out. Tops the window
  // up first. Throws ferry::wait_timeout_error past the deadline, and what
  // the input's iterator throws; either cancels what is still out and ends
  // the map.
  std::optional<finished> next();

 private:
  struct state;
  std::unique_ptr<state> s_;
};

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_MAP_WINDOW_H_
