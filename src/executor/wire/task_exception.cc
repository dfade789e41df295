// Copyright ferry authors.
#include "executor/wire/task_exception.h"

#include <cxxabi.h>

#include <new>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "serialize/code/demangle.h"

namespace ferry::detail {
namespace {

using protocol::exception_kind;

// Only the exact standard types keep their type; a subclass (including
// ferry's own errors) is not one of them and travels as task_error.
exception_kind kind_of(const std::type_info& t) {
  if (t == typeid(std::runtime_error)) return exception_kind::runtime_error;
  if (t == typeid(std::logic_error)) return exception_kind::logic_error;
  if (t == typeid(std::invalid_argument)) return exception_kind::invalid_argument;
  if (t == typeid(std::out_of_range)) return exception_kind::out_of_range;
  if (t == typeid(std::domain_error)) return exception_kind::domain_error;
  if (t == typeid(std::length_error)) return exception_kind::length_error;
  if (t == typeid(std::range_error)) return exception_kind::range_error;
  if (t == typeid(std::overflow_error)) return exception_kind::overflow_error;
  if (t == typeid(std::underflow_error)) return exception_kind::underflow_error;
  if (t == typeid(std::bad_alloc)) return exception_kind::bad_alloc;
  return exception_kind::other;
}

}  // namespace

namespace {

// "std::_Nested_exception<std::runtime_error>" is what throw_with_nested
// throws; users wrote std::runtime_error.
std::string without_nesting_wrapper(std::string type) {
  constexpr std::string_view wrapper = "std::_Nested_exception<";
  if (type.starts_with(wrapper) && type.ends_with(">"))
    return type.substr(wrapper.size(), type.size() - wrapper.size() - 1);
  return type;
}

// Appends ": inner what()" for each nested exception.
void append_nested(std::string& what, const std::exception& e) {
  try {
    std::rethrow_if_nested(e);
  } catch (const std::exception& inner) {
    what += ": ";
    what += inner.what();
    append_nested(what, inner);
  } catch (...) {
    what += ": (an exception that is not a std::exception)";
  }
}

exception_kind current_kind() {
  try {
    throw;
  } catch (const std::nested_exception&) {
    return exception_kind::other;  // rethrown as task_error, which keeps the inner messages
  } catch (const std::exception& e) {
    return kind_of(typeid(e));
  } catch (...) {
    return exception_kind::other;
  }
}

}  // namespace

std::pair<std::string, std::string> describe_current_exception() {
  try {
    throw;
  } catch (const std::exception& e) {
    std::string what = e.what();
    append_nested(what, e);
    return {without_nesting_wrapper(demangle(typeid(e).name())), what};
  } catch (...) {
    const std::type_info* t = abi::__cxa_current_exception_type();
    return {t != nullptr ? demangle(t->name()) : "unknown", ""};
  }
}

protocol::exception_record current_exception_record() {
  auto [type, what] = describe_current_exception();
  return {current_kind(), std::move(type), std::move(what)};
}

protocol::exception_record current_exception_record(serialization_error::phase where) {
  auto [type, what] = describe_current_exception();
  return {exception_kind::serialization, std::move(type), std::move(what), where};
}

std::exception_ptr current_as_serialization_error(serialization_error::phase where) {
  auto [type, what] = describe_current_exception();
  return std::make_exception_ptr(serialization_error(where, std::move(type), std::move(what)));
}

void rethrow(const protocol::exception_record& r) { std::rethrow_exception(exception_of(r)); }

protocol::exception_record record_of(const std::exception_ptr& error) {
  protocol::exception_record r;
  try {
    std::rethrow_exception(error);
  } catch (const worker_died_error& e) {
    r.kind = exception_kind::worker_died;
    r.what = e.cause();
    r.pid = e.pid();
    r.crash = e.crash();
  } catch (const task_timeout_error& e) {
    r.kind = exception_kind::task_timeout;
    r.what = e.what();
  } catch (const worker_start_error& e) {
    r.kind = exception_kind::worker_start;
    r.what = e.what();
  } catch (const pool_shutdown_error& e) {
    r.kind = exception_kind::pool_shutdown;
    r.what = e.what();
  } catch (const serialization_error& e) {
    r.kind = exception_kind::serialization;
    r.phase = e.where();
    r.type_name = e.type_name();
    r.what = e.message();
  } catch (const not_shippable_error& e) {
    r.kind = exception_kind::not_shippable;
    r.what = e.what();
  } catch (const cancelled_error& e) {
    r.kind = exception_kind::cancelled;
    r.what = e.what();
  } catch (const task_error& e) {
    r.kind = exception_kind::other;
    r.type_name = e.type_name();
    r.what = e.message();
  } catch (const ferry::error& e) {
    r.kind = exception_kind::ferry_error;
    r.what = e.what();
  } catch (...) {
    r = current_exception_record();
  }
  return r;
}

std::exception_ptr exception_of(const protocol::exception_record& r, std::string_view where) {
  const std::string what = r.what + std::string(where);
  switch (r.kind) {
    case exception_kind::runtime_error: return std::make_exception_ptr(std::runtime_error(what));
    case exception_kind::logic_error: return std::make_exception_ptr(std::logic_error(what));
    case exception_kind::invalid_argument: return std::make_exception_ptr(std::invalid_argument(what));
    case exception_kind::out_of_range: return std::make_exception_ptr(std::out_of_range(what));
    case exception_kind::domain_error: return std::make_exception_ptr(std::domain_error(what));
    case exception_kind::length_error: return std::make_exception_ptr(std::length_error(what));
    case exception_kind::range_error: return std::make_exception_ptr(std::range_error(what));
    case exception_kind::overflow_error: return std::make_exception_ptr(std::overflow_error(what));
    case exception_kind::underflow_error: return std::make_exception_ptr(std::underflow_error(what));
    case exception_kind::bad_alloc: return std::make_exception_ptr(std::bad_alloc());
    case exception_kind::serialization:
      return std::make_exception_ptr(serialization_error(r.phase, r.type_name, what));
    case exception_kind::worker_died: return std::make_exception_ptr(worker_died_error(r.pid, what, r.crash));
    case exception_kind::task_timeout: return std::make_exception_ptr(task_timeout_error(what));
    case exception_kind::worker_start: return std::make_exception_ptr(worker_start_error(what));
    case exception_kind::pool_shutdown: return std::make_exception_ptr(pool_shutdown_error(what));
    case exception_kind::not_shippable: return std::make_exception_ptr(not_shippable_error(what));
    case exception_kind::ferry_error: return std::make_exception_ptr(error(what));
    case exception_kind::cancelled: return std::make_exception_ptr(cancelled_error(what));
    case exception_kind::other: break;
  }
  return std::make_exception_ptr(task_error(r.type_name, what));
}

}  // namespace ferry::detail
