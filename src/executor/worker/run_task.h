// Copyright ferry authors. Internal: how a worker runs one task message.
#ifndef FERRY_SRC_EXECUTOR_WORKER_RUN_TASK_H_
#define FERRY_SRC_EXECUTOR_WORKER_RUN_TASK_H_

#include <span>
#include <string>
#include <string_view>

#include <serialize/internal/fd_list.h>

namespace ferry::detail {

// Runs every item of a task message's body and returns the result body
// (protocol.h has both layouts). `passed`: the descriptors that came with
// the task; `result_attachments`: where shared buffers in the result pass
// their memory, or null to write their bytes. Never throws: whatever goes
// wrong, from bytes that cannot be read to an item that throws, is in the
// result.
std::string run_task(std::string_view body, std::span<const int> passed = {},
                     fd_list* result_attachments = nullptr);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WORKER_RUN_TASK_H_
