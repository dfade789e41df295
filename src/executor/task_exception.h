// Copyright ferry authors. Internal: carrying a task's exception from a
// worker to the pool (the record format is in protocol.h).
#ifndef FERRY_SRC_EXECUTOR_TASK_EXCEPTION_H_
#define FERRY_SRC_EXECUTOR_TASK_EXCEPTION_H_

#include "serialize/archive.h"

namespace ferry::detail {

// Writes the exception being handled (call inside a catch block).
void write_current_exception(output_archive& ar);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_TASK_EXCEPTION_H_
