// Copyright ferry authors.
#include "executor/worker/run_task.h"

#include <optional>

#include "executor/pool/crash_report.h"
#include "executor/wire/protocol.h"
#include <serialize/internal/identity.h>
#include "executor/wire/task_exception.h"

namespace ferry::detail {

std::string run_task(std::string_view body, std::span<const int> passed, fd_list* result_attachments) {
  std::optional<input_archive> in;
  protocol::task_head task{};
  try {
    in.emplace(body);
    read_attached(*in, passed);
    // The message verified under the pool's key: the parent made it, and
    // the modules it names are the parent's own.
    vouch_for_modules(*in);
    task = protocol::read_task(*in);
  } catch (...) {
    return protocol::encode_whole_failure(
        current_exception_record(serialization_error::phase::loading_task));
  }
  // Reading the task may have loaded its module: a crash report must know
  // it to name the task's frames.
  note_loaded_modules();
  protocol::result_writer result(task.count, result_attachments);
  // Once an item's arguments cannot be read, the following items cannot be
  // found in the stream: they fail with the same error.
  bool unreadable = false;
  for (std::uint32_t i = 0; i < task.count; ++i) {
    if (unreadable) {
      result.repeat_item();
      continue;
    }
    call_stage stage = call_stage::reading_arguments;
    try {
      task.function->call_serialized(*in, result.begin_value(), stage);
    } catch (...) {
      switch (stage) {
        case call_stage::reading_arguments:
          result.fail(current_exception_record(serialization_error::phase::loading_task));
          unreadable = true;
          break;
        case call_stage::calling:
          result.fail(current_exception_record());
          break;
        case call_stage::writing_result:
          result.fail(current_exception_record(serialization_error::phase::saving_result));
          break;
      }
    }
    result.end_item();
  }
  return result.finish();
}

}  // namespace ferry::detail
