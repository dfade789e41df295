// Copyright ferry authors.
#include "executor/core/admission.h"

#include <string>

#include <executor/errors.h>
#include "executor/wire/task_exception.h"
#include <serialize/error.h>

namespace ferry::detail {

std::shared_ptr<future_state> failed_state(std::exception_ptr error) {
  auto state = make_future_state();
  state->fail(std::move(error));
  return state;
}

std::exception_ptr refusal(const protocol::encoded_task& task, const pool_options& workers) {
  if (task.names_main_program && workers.start == start_method::plugin) {
    return std::make_exception_ptr(not_shippable_error(
        "ferry: the task's code is in the main executable, which a plugin worker "
        "(ferry-worker) cannot load; put the code in a shared library, or use "
        "start_method::spawn or start_method::fork"));
  }
  if (task.body.size() > workers.max_message_size) {
    return std::make_exception_ptr(error(
        "ferry: the task's message of " + std::to_string(task.body.size()) +
        " bytes exceeds pool_options::max_message_size (" + std::to_string(workers.max_message_size) +
        " bytes); nothing was sent"));
  }
  if (task.attachments.size() > protocol::max_attachments) {
    return std::make_exception_ptr(error(
        "ferry: the task passes " + std::to_string(task.attachments.size()) +
        " ferry::shared_buffer values, more than a message carries (" +
        std::to_string(protocol::max_attachments) + "); pass fewer, or one larger buffer; nothing was sent"));
  }
  return nullptr;
}

std::variant<protocol::encoded_task, std::shared_ptr<future_state>> admit(
    const task_writer& task, std::uint32_t count, const pool_options& workers, bool list_modules,
    bool pass_buffers, std::string into) {
  protocol::encoded_task encoded;
  try {
    encoded = protocol::encode_task(task, count, list_modules, pass_buffers, std::move(into));
  } catch (const bad_function_call&) {
    return failed_state(std::current_exception());  // not a failure to serialize: nothing to run
  } catch (...) {
    return failed_state(current_as_serialization_error(serialization_error::phase::saving_task));
  }
  if (std::exception_ptr why = refusal(encoded, workers)) return failed_state(std::move(why));
  return encoded;
}

}  // namespace ferry::detail
