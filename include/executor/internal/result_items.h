// Copyright ferry authors. Internal: reading a finished task's result, for
// the templates of future.h and process_pool.h. The layout belongs to
// src/executor/wire/protocol.h; this header only hands its pieces to typed code.
#ifndef FERRY_EXECUTOR_INTERNAL_RESULT_ITEMS_H_
#define FERRY_EXECUTOR_INTERNAL_RESULT_ITEMS_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "executor/internal/config.h"
#include "executor/internal/future_state.h"
#include "serialize/archive.h"

namespace ferry::detail {

// Waits for state, rethrows its error or the exception that failed the whole
// task, and returns the items of its result, one per input (each lives as
// long as the state); `attachments`, when given, gets the descriptors that
// came with the result (the memory of its shared buffers), open as long as
// the state too. Throws ferry::error if the result does not hold `expected`
// items.
FERRY_EXECUTOR_EXPORT std::vector<std::string_view> result_items(const future_state& state,
                                                                 std::uint32_t expected,
                                                                 std::span<const int>* attachments = nullptr);

// Waits for a state made in this process and rethrows its error; then the
// value a continuation, a coroutine or when_all/when_any gave it
// (future_state::finish_local). A task's result is read by result_items.
FERRY_EXECUTOR_EXPORT const void* local_result(const future_state& state);

// Whether the finished state holds an exception: an error, a task that
// threw, or a result whose one item is an exception. False while it runs.
FERRY_EXECUTOR_EXPORT bool has_exception(const future_state& state);

// How many of the `items` of a finished task's result hold an exception (a
// map's chunk answers with one item per input): all of them when the whole
// task failed or its result cannot be read as `items` items; 0 while it
// runs, and for a value made in this process.
FERRY_EXECUTOR_EXPORT std::uint32_t items_that_threw(const future_state& state, std::uint32_t items);

// The bytes of an item's value; throws the task's exception if the item
// holds one instead (see executor/errors.h for which type).
FERRY_EXECUTOR_EXPORT std::string_view item_value(std::string_view item);

// Throws the exception being handled as a ferry::serialization_error of
// phase loading_result (call inside a catch block).
[[noreturn]] FERRY_EXECUTOR_EXPORT void throw_as_loading_result_error();

// `attachments`: those result_items gave with the item.
template <class T>
T read_item(std::string_view item, std::span<const int> attachments = {}) {
  const std::string_view bytes = item_value(item);
  if constexpr (!std::is_void_v<T>) {
    T value{};
    try {
      input_archive ar(bytes);
      read_attached(ar, attachments);
      ar(value);
    } catch (...) {
      throw_as_loading_result_error();
    }
    return value;
  }
}

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_RESULT_ITEMS_H_
