// Copyright ferry authors.
#include <executor/internal/result_items.h>

#include "executor/wire/message_io.h"
#include "executor/wire/protocol.h"
#include "executor/wire/task_exception.h"

namespace ferry::detail {

std::vector<std::string_view> result_items(const future_state& state, std::uint32_t expected,
                                           std::span<const int>* attachments) {
  state.wait();
  if (std::exception_ptr e = state.error()) std::rethrow_exception(e);
  // The state holds its body as long as it lives: views into it stay valid.
  const std::shared_ptr<const message_body> body = state.result();
  protocol::decoded_result r = protocol::decode_result(body->view(), expected);
  if (r.whole_failed) rethrow(r.failure);
  if (attachments != nullptr) *attachments = body->attachments();
  return std::move(r.items);
}

const void* local_result(const future_state& state) {
  state.wait();
  if (std::exception_ptr e = state.error()) std::rethrow_exception(e);
  return state.local_value().get();
}

bool has_exception(const future_state& state) { return items_that_threw(state, 1) != 0; }

std::uint32_t items_that_threw(const future_state& state, std::uint32_t items) {
  if (!state.ready()) return 0;
  if (state.error()) return items;
  if (state.local_value() != nullptr) return 0;
  const std::shared_ptr<const message_body> body = state.result();
  try {
    const protocol::decoded_result r = protocol::decode_result(body->view(), items);
    if (r.whole_failed) return items;
    std::uint32_t threw = 0;
    for (const std::string_view item : r.items) threw += protocol::decode_item(item).failed ? 1 : 0;
    return threw;
  } catch (const error&) {
    return items;  // a result that cannot be read: get() throws for each item
  }
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
