// Copyright ferry authors. Internal: the worker side of the protocol.
#ifndef FERRY_SRC_EXECUTOR_WORKER_MAIN_H_
#define FERRY_SRC_EXECUTOR_WORKER_MAIN_H_

#include <string>
#include <string_view>

namespace ferry::detail {

// Environment variables a started worker program finds its socket and its
// parent by.
inline constexpr const char* worker_fd_variable = "FERRY_WORKER_FD";
inline constexpr const char* parent_pid_variable = "FERRY_PARENT_PID";

// Serves tasks on fd in a freshly forked child, then exits the process.
[[noreturn]] void serve_forked(int fd);

// Runs every item of a task message body and returns the result message
// (with room for its frame header); see protocol.h for both layouts. Never
// throws: whatever goes wrong is in the result.
std::string run_task(std::string_view body);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WORKER_MAIN_H_
