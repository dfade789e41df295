// Copyright ferry authors. Internal: how a worker runs one task message.
#ifndef FERRY_SRC_EXECUTOR_RUN_TASK_H_
#define FERRY_SRC_EXECUTOR_RUN_TASK_H_

#include <string>
#include <string_view>

namespace ferry::detail {

// Runs every item of a task message's body and returns the result body
// (protocol.h has both layouts). Never throws: whatever goes wrong, from
// bytes that cannot be read to an item that throws, is in the result.
std::string run_task(std::string_view body);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_RUN_TASK_H_
