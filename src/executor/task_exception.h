// Copyright ferry authors. Internal: carrying a task's exception from a
// worker to the pool (the record format is in protocol.h).
#ifndef FERRY_SRC_EXECUTOR_TASK_EXCEPTION_H_
#define FERRY_SRC_EXECUTOR_TASK_EXCEPTION_H_

#include <string>
#include <utility>

#include "executor/errors.h"
#include "serialize/archive.h"

namespace ferry::detail {

// Writes the exception being handled (call inside a catch block).
void write_current_exception(output_archive& ar);
// Writes it as a ferry::serialization_error of phase `where`.
void write_current_exception(output_archive& ar, serialization_error::phase where);

// The demangled type and the what() of the exception being handled; the
// what() of nested exceptions (std::throw_with_nested) is appended.
std::pair<std::string, std::string> describe_current_exception();

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_TASK_EXCEPTION_H_
