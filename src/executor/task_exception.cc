// Copyright ferry authors.
#include "task_exception.h"

#include <cxxabi.h>

#include <cereal/types/string.hpp>

#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "executor/errors.h"
#include "executor/future.h"
#include "protocol.h"

namespace ferry::detail {
namespace {

using protocol::exception_kind;

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                                  &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

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

void write_current_exception(output_archive& ar) {
  std::string type;
  std::string what;
  exception_kind kind = exception_kind::other;
  try {
    throw;
  } catch (const std::exception& e) {
    kind = kind_of(typeid(e));
    type = demangle(typeid(e).name());
    what = e.what();
  } catch (...) {
    const std::type_info* t = abi::__cxa_current_exception_type();
    type = t != nullptr ? demangle(t->name()) : "unknown";
  }
  ar(static_cast<std::uint8_t>(kind), type, what);
}

void rethrow_task_exception(input_archive& ar) {
  std::uint8_t kind;
  std::string type;
  std::string what;
  ar(kind, type, what);
  switch (static_cast<exception_kind>(kind)) {
    case exception_kind::runtime_error: throw std::runtime_error(what);
    case exception_kind::logic_error: throw std::logic_error(what);
    case exception_kind::invalid_argument: throw std::invalid_argument(what);
    case exception_kind::out_of_range: throw std::out_of_range(what);
    case exception_kind::domain_error: throw std::domain_error(what);
    case exception_kind::length_error: throw std::length_error(what);
    case exception_kind::range_error: throw std::range_error(what);
    case exception_kind::overflow_error: throw std::overflow_error(what);
    case exception_kind::underflow_error: throw std::underflow_error(what);
    case exception_kind::bad_alloc: throw std::bad_alloc();
    default: throw task_error(type, what);
  }
}

}  // namespace ferry::detail
