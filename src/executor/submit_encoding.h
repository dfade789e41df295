// Copyright ferry authors. Internal: a task's message body, for any pool
// (submit.cc).
#ifndef FERRY_SRC_EXECUTOR_SUBMIT_ENCODING_H_
#define FERRY_SRC_EXECUTOR_SUBMIT_ENCODING_H_

#include <cstdint>
#include <memory>
#include <variant>

#include "executor/internal/future_state.h"
#include "executor/internal/submit.h"
#include "protocol.h"
#include "serialize/internal/config.h"

namespace ferry::detail {

// The task encoded (as protocol::encode_task), or, when writing it threw, a
// state failed with a serialization_error of phase saving_task.
FERRY_EXPORT std::variant<protocol::encoded_task, std::shared_ptr<future_state>> encode_or_fail(
    const task_writer& task, std::uint32_t count, bool list_modules = false);

// A state already failed with `error`.
FERRY_EXPORT std::shared_ptr<future_state> failed_state(std::exception_ptr error);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_SUBMIT_ENCODING_H_
