// Copyright ferry authors.
#include "executor/internal/result_items.h"

#include "executor/message_io.h"
#include "executor/protocol.h"
#include "executor/task_exception.h"

namespace ferry::detail {

std::vector<std::string_view> result_items(const future_state& state, std::uint32_t expected) {
  state.wait();
  if (std::exception_ptr e = state.error()) std::rethrow_exception(e);
  protocol::decoded_result r = protocol::decode_result(state.result()->view(), expected);
  if (r.whole_failed) rethrow(r.failure);
  return std::move(r.items);
}

std::string_view item_value(std::string_view item) {
  const protocol::decoded_item r = protocol::decode_item(item);
  if (r.failed) rethrow(r.failure);
  return r.value;
}

void throw_as_loading_result_error() {
  std::rethrow_exception(current_as_serialization_error(serialization_error::phase::loading_result));
}

}  // namespace ferry::detail
