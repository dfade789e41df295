// Copyright ferry authors. Internal: a task's exception as it crosses from
// a worker to the pool: captured into a record in the worker, thrown again
// from the record in the pool (the record's bytes are protocol.h's).
#ifndef FERRY_SRC_EXECUTOR_WIRE_TASK_EXCEPTION_H_
#define FERRY_SRC_EXECUTOR_WIRE_TASK_EXCEPTION_H_

#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include <executor/errors.h>
#include "executor/wire/protocol.h"
#include "internal/export.h"

namespace ferry::detail {

// The exception being handled, as the task threw it (call inside a catch
// block): the exact standard types keep their kind, anything else becomes
// a ferry::task_error in the pool.
protocol::exception_record current_exception_record();
// The same, as a ferry::serialization_error of phase `where`.
protocol::exception_record current_exception_record(serialization_error::phase where);

// Throws the exception a record describes.
[[noreturn]] void rethrow(const protocol::exception_record& record);

// An error that failed a task as a whole (the pool's own: a worker's
// death with its crash report, a timeout, a start failure, ...; or any
// other exception) as a record, to cross to another process; and the
// error a record describes, `where` (" (on host H)") appended to its
// message. exception_of(record_of(e)) has e's type and message.
FERRY_INTERNAL_EXPORT protocol::exception_record record_of(const std::exception_ptr& error);
FERRY_INTERNAL_EXPORT std::exception_ptr exception_of(const protocol::exception_record& record,
                                                      std::string_view where = {});

// The demangled type and the what() of the exception being handled; the
// what() of nested exceptions (std::throw_with_nested) is appended.
std::pair<std::string, std::string> describe_current_exception();

// The exception being handled as a ferry::serialization_error of `where`.
std::exception_ptr current_as_serialization_error(serialization_error::phase where);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WIRE_TASK_EXCEPTION_H_
