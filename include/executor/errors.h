// Copyright ferry authors.
//
// The errors of the executor, all derived from ferry::error. A task's own
// exception is rethrown by future::get() as the same type when it is one of
// the standard exception types (std::runtime_error, std::logic_error,
// std::invalid_argument, std::out_of_range, std::domain_error,
// std::length_error, std::range_error, std::overflow_error,
// std::underflow_error, std::bad_alloc, std::bad_optional_access,
// std::bad_variant_access, std::bad_cast, std::bad_function_call), and
// std::system_error, std::filesystem::filesystem_error and
// std::ios_base::failure with their error_code (of a standard category)
// and paths; a type given to ferry::register_exception<E>() arrives as E;
// any other exception arrives as ferry::task_error naming the original
// type. docs/api/errors.md lists when each happens and what to do.
#ifndef FERRY_EXECUTOR_ERRORS_H_
#define FERRY_EXECUTOR_ERRORS_H_

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "executor/internal/config.h"
#include "serialize/error.h"

namespace ferry {

// A task threw an exception of a type that is not rethrown as itself.
class FERRY_EXECUTOR_EXPORT task_error : public error {
 public:
  task_error(std::string type_name, std::string message);
  ~task_error() override;
  // The demangled type of what the task threw, e.g. "my::parse_error".
  const std::string& type_name() const noexcept { return type_name_; }
  // Its what(), or "" for a type without one.
  const std::string& message() const noexcept { return message_; }

 private:
  std::string type_name_;
  std::string message_;
};

namespace detail {
// register_exception's: `mangled` is typeid(E).name(), `make` makes an E
// from a what().
using exception_maker = std::exception_ptr (*)(const std::string& what);
FERRY_EXECUTOR_EXPORT void add_exception_type(const char* mangled, exception_maker make);
}  // namespace detail

// Makes an exception of type E that a task throws arrive as an E, where it
// would arrive as a task_error: future::get() throws E(what), made in this
// process from the what() of the task's exception (with an inner one's
// message appended, as task_error's, for std::throw_with_nested). Only
// what() travels: fields of E beyond it are made by that constructor. It
// matches the exact type E, as the standard types are matched, and holds
// for every pool of this process from the call on: call it in the process
// that reads the results (on an mpi_pool, rank 0) before they arrive;
// workers need no call. A second call for E changes nothing.
// Thread-safe. E: derived from std::exception, constructible from a
// std::string.
template <class E>
void register_exception() {
  static_assert(std::is_base_of_v<std::exception, E>,
                "ferry::register_exception<E>(): E must derive from std::exception");
  static_assert(std::is_constructible_v<E, std::string>,
                "ferry::register_exception<E>(): E must be constructible from a std::string, the what() "
                "of the exception the task threw: give it E(const std::string&), or "
                "`using std::runtime_error::runtime_error;` in a subclass of std::runtime_error");
  if constexpr (std::is_base_of_v<std::exception, E> && std::is_constructible_v<E, std::string>)
    detail::add_exception_type(typeid(E).name(),
                               [](const std::string& what) { return std::make_exception_ptr(E(what)); });
}

// The worker process running the task exited (even with code 0: a task that
// calls exit() ends its worker) or was killed. The message names the cause,
// e.g. "was killed by signal 11 (SIGSEGV)" or "exited with code 3". A task
// sent again after earlier deaths (task_options::retries) lists how each
// attempt ended, in order, the last being cause(); and a named task is
// named.
// One frame of the stack of a task whose worker died by a signal.
struct crash_frame {
  std::uintptr_t address = 0;  // in the worker's address space
  std::string module;          // the file holding it; empty if none did
  std::uint64_t offset = 0;    // from that module's load base
  std::string function;        // "name+0x1f" from the module's symbols; empty if none covers it
};

// What a worker that died by a signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
// SIGABRT) wrote before it died: the signal, the faulting address, and the
// crashing thread's stack, innermost first, symbolized by the pool.
struct crash_report {
  int signal = 0;
  std::uintptr_t fault_address = 0;  // si_addr: the address a SIGSEGV or SIGBUS touched
  std::vector<crash_frame> frames;
};

class FERRY_EXECUTOR_EXPORT worker_died_error : public error {
 public:
  // what() shows the crash's first frames, if there is one.
  worker_died_error(int pid, std::string cause, std::optional<crash_report> crash = std::nullopt);
  // The last of several attempts; `earlier` holds how each earlier one ended.
  worker_died_error(int pid, std::string cause, std::vector<std::string> earlier, const std::string& name,
                    std::optional<crash_report> crash = std::nullopt);
  ~worker_died_error() override;
  // 0 when it is not known: a worker lost with its MPI agent.
  int pid() const noexcept { return pid_; }
  const std::string& cause() const noexcept { return cause_; }
  // How each attempt ended, the last being cause(); at least one.
  const std::vector<std::string>& attempts() const noexcept { return attempts_; }
  // The worker's crash report, when it died by a signal of a crash and
  // could write one (not for SIGKILL, nor a worker that never started).
  const std::optional<crash_report>& crash() const noexcept { return crash_; }

 private:
  int pid_;
  std::string cause_;
  std::vector<std::string> attempts_;
  std::optional<crash_report> crash_;
};

// A worker could not be started, or exited before it was ready (for the
// spawn method: the program does not call ferry::serve_if_worker).
class FERRY_EXECUTOR_EXPORT worker_start_error : public error {
 public:
  explicit worker_start_error(const std::string& message);
  ~worker_start_error() override;
};

// The task ran longer than pool_options::task_timeout; its worker was killed.
class FERRY_EXECUTOR_EXPORT task_timeout_error : public error {
 public:
  explicit task_timeout_error(const std::string& message);
  ~task_timeout_error() override;
};

// The task was cancelled (future::cancel) before it was sent to a worker,
// or while it ran (future::cancel(grace)), which what() then says.
class FERRY_EXECUTOR_EXPORT cancelled_error : public error {
 public:
  cancelled_error();
  explicit cancelled_error(const std::string& message);
  ~cancelled_error() override;
};

// A task, its arguments or its result could not be serialized or loaded.
// Only that task's future fails; where() says in which of the four places.
class FERRY_EXECUTOR_EXPORT serialization_error : public error {
 public:
  enum class phase {
    saving_task,    // in the pool, before sending: nothing was sent
    loading_task,   // in the worker: the worker goes on serving
    saving_result,  // in the worker: no partial result is delivered
    loading_result  // in the pool, in future::get()
  };
  serialization_error(phase where, std::string type_name, std::string message);
  ~serialization_error() override;
  phase where() const noexcept { return where_; }
  // The type and what() of the error that stopped it.
  const std::string& type_name() const noexcept { return type_name_; }
  const std::string& message() const noexcept { return message_; }

 private:
  phase where_;
  std::string type_name_;
  std::string message_;
};

// "saving the task in the pool", "loading the task in the worker", ...
FERRY_EXECUTOR_EXPORT const char* to_string(serialization_error::phase where) noexcept;

// A wait with a deadline (process_pool::map, or as_completed, with a
// timeout) ran out of time.
class FERRY_EXECUTOR_EXPORT wait_timeout_error : public error {
 public:
  explicit wait_timeout_error(const std::string& message);
  ~wait_timeout_error() override;
};

// The pool was shut down: submit after shutdown, or a pending task cancelled
// by shutdown(wait, cancel_pending = true).
class FERRY_EXECUTOR_EXPORT pool_shutdown_error : public error {
 public:
  explicit pool_shutdown_error(const std::string& message);
  ~pool_shutdown_error() override;
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_ERRORS_H_
