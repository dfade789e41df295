// Copyright ferry authors. Internal: what a pool may queue, decided in one
// place for process_pool and mpi_pool alike. A task is refused at submit,
// its future failed before anything is sent, when its workers could never
// run it:
//   - writing it threw: ferry::serialization_error, phase saving_task;
//   - its code is in the main executable and its workers are plugin
//     workers (ferry-worker), which cannot load another program:
//     ferry::not_shippable_error;
//   - its message exceeds pool_options::max_message_size: ferry::error;
//   - it passes more than protocol::max_attachments shared buffers:
//     ferry::error.
#ifndef FERRY_SRC_EXECUTOR_CORE_ADMISSION_H_
#define FERRY_SRC_EXECUTOR_CORE_ADMISSION_H_

#include <cstdint>
#include <exception>
#include <memory>
#include <variant>

#include <executor/internal/future_state.h>
#include <executor/internal/submit.h>
#include <executor/pool_options.h>
#include "executor/wire/protocol.h"
#include "internal/export.h"

namespace ferry::detail {

// The task encoded (as protocol::encode_task), or a state already failed
// with why `workers` could not run it.
FERRY_INTERNAL_EXPORT std::variant<protocol::encoded_task, std::shared_ptr<future_state>> admit(
    const task_writer& task, std::uint32_t count, const pool_options& workers, bool list_modules = false,
    bool pass_buffers = false, std::string into = {});

// Why `workers` could not run a task already encoded; null when they can.
FERRY_INTERNAL_EXPORT std::exception_ptr refusal(const protocol::encoded_task& task,
                                                 const pool_options& workers);

// A state already failed with `error`.
FERRY_INTERNAL_EXPORT std::shared_ptr<future_state> failed_state(std::exception_ptr error);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_ADMISSION_H_
