// Copyright ferry authors.
#include "executor/wire/task_exception.h"

#include <cxxabi.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <ios>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <typeinfo>
#include <unordered_map>
#include <variant>

#include "internal/mutex.h"
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
  if (t == typeid(std::system_error)) return exception_kind::system_error;
  if (t == typeid(std::filesystem::filesystem_error)) return exception_kind::filesystem_error;
  // What libstdc++'s streams throw is std::__ios_failure, a subclass of
  // ios_base::failure it does not declare: a user catches ios_base::failure.
  if (t == typeid(std::ios_base::failure) || std::strcmp(t.name(), "St13__ios_failure") == 0)
    return exception_kind::ios_failure;
  if (t == typeid(std::bad_optional_access)) return exception_kind::bad_optional_access;
  if (t == typeid(std::bad_variant_access)) return exception_kind::bad_variant_access;
  if (t == typeid(std::bad_cast)) return exception_kind::bad_cast;
  if (t == typeid(std::bad_function_call)) return exception_kind::bad_function_call;
  return exception_kind::other;
}

std::optional<protocol::error_category_id> category_id(const std::error_category& c) {
  using protocol::error_category_id;
  if (c == std::generic_category()) return error_category_id::generic;
  if (c == std::system_category()) return error_category_id::system;
  if (c == std::iostream_category()) return error_category_id::iostream;
  if (c == std::future_category()) return error_category_id::future;
  return std::nullopt;
}

const std::error_category& category_of(protocol::error_category_id id) {
  switch (id) {
    case protocol::error_category_id::generic: break;
    case protocol::error_category_id::system: return std::system_category();
    case protocol::error_category_id::iostream: return std::iostream_category();
    case protocol::error_category_id::future: return std::future_category();
  }
  return std::generic_category();
}

// The text a std::system_error was constructed with: its what() less the
// ": " and code message the constructor appended ("" when it was given the
// code alone); nullopt when what() has another form.
std::optional<std::string> given_text(std::string_view what, const std::error_code& code) {
  const std::string message = code.message();
  if (what == message) return std::string();
  const std::string tail = ": " + message;
  if (!what.ends_with(tail)) return std::nullopt;
  return std::string(what.substr(0, what.size() - tail.size()));
}

std::filesystem::filesystem_error filesystem_error_of(const std::string& text,
                                                      const std::vector<std::filesystem::path>& paths,
                                                      std::error_code code) {
  using std::filesystem::filesystem_error;
  switch (paths.size()) {
    case 0: return filesystem_error(text, code);
    case 1: return filesystem_error(text, paths[0], code);
    default: return filesystem_error(text, paths[0], paths[1], code);
  }
}

// The code, the text and (filesystem_error) the paths of the exception
// being handled, a kind that carries an error_code: what rebuilds it in
// another process with the same what(). Where one cannot be carried (a
// category of the program's own, a what() of another form), the record
// becomes kind other, a task_error naming the type, as before.
void keep_error_code(protocol::exception_record& r) {
  try {
    throw;
  } catch (const std::system_error& e) {
    const auto category = category_id(e.code().category());
    // The base's what(), not filesystem_error's longer one.
    const auto text = given_text(e.std::system_error::what(), e.code());
    if (!category || !text) {
      r.kind = exception_kind::other;
      return;
    }
    if (r.kind == exception_kind::filesystem_error) {
      const auto& fe = static_cast<const std::filesystem::filesystem_error&>(e);  // its exact type
      // How many paths it was made with (path1() is empty both when it was
      // given none and when it was given an empty one): the count whose
      // what() is the same.
      std::vector<std::filesystem::path> named;
      while (std::strcmp(filesystem_error_of(*text, named, e.code()).what(), fe.what()) != 0) {
        if (named.size() == 2) {
          r.kind = exception_kind::other;
          return;
        }
        named.push_back(named.empty() ? fe.path1() : fe.path2());
      }
      for (const auto& p : named) r.paths.push_back(p.native());
    }
    r.code = e.code().value();
    r.category = *category;
    r.text = *text;
  } catch (...) {
    r.kind = exception_kind::other;
  }
}

// The types given to register_exception, by demangled name: what a
// record's type_name says.
struct exception_types {
  mutex mu;
  std::unordered_map<std::string, exception_maker> by_name ABSL_GUARDED_BY(mu);
};

exception_types& registered_types() {
  // Never destroyed: a result may be read as the process exits.
  static auto* types = new exception_types;
  return *types;
}

// An exception of the registered type `type_name` made from `what`, or
// null: none is registered, or its constructor threw.
std::exception_ptr registered_exception(const std::string& type_name, const std::string& what) {
  exception_maker make = nullptr;
  {
    exception_types& types = registered_types();
    mutex_lock lock(types.mu);
    const auto found = types.by_name.find(type_name);
    if (found == types.by_name.end()) return nullptr;
    make = found->second;
  }
  try {
    return make(what);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

void add_exception_type(const char* mangled, exception_maker make) {
  exception_types& types = registered_types();
  std::string name = demangle(mangled);
  mutex_lock lock(types.mu);
  types.by_name.insert_or_assign(std::move(name), make);
}

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
  protocol::exception_record r{current_kind(), std::move(type), std::move(what)};
  if (r.kind == exception_kind::system_error || r.kind == exception_kind::filesystem_error ||
      r.kind == exception_kind::ios_failure)
    keep_error_code(r);
  return r;
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
    // The host goes after the text given to the constructor, before the
    // code's message that the constructor appends.
    case exception_kind::system_error: {
      const std::error_code code(r.code, category_of(r.category));
      const std::string text = r.text + std::string(where);
      return text.empty() ? std::make_exception_ptr(std::system_error(code))
                          : std::make_exception_ptr(std::system_error(code, text));
    }
    case exception_kind::filesystem_error:
      return std::make_exception_ptr(filesystem_error_of(r.text + std::string(where), {r.paths.begin(), r.paths.end()},
                                                         std::error_code(r.code, category_of(r.category))));
    case exception_kind::ios_failure:
      return std::make_exception_ptr(
          std::ios_base::failure(r.text + std::string(where), std::error_code(r.code, category_of(r.category))));
    case exception_kind::bad_optional_access: return std::make_exception_ptr(std::bad_optional_access());
    case exception_kind::bad_variant_access: return std::make_exception_ptr(std::bad_variant_access());
    case exception_kind::bad_cast: return std::make_exception_ptr(std::bad_cast());
    case exception_kind::bad_function_call: return std::make_exception_ptr(std::bad_function_call());
    case exception_kind::serialization:
      return std::make_exception_ptr(serialization_error(r.phase, r.type_name, what));
    case exception_kind::worker_died: return std::make_exception_ptr(worker_died_error(r.pid, what, r.crash));
    case exception_kind::task_timeout: return std::make_exception_ptr(task_timeout_error(what));
    case exception_kind::worker_start: return std::make_exception_ptr(worker_start_error(what));
    case exception_kind::pool_shutdown: return std::make_exception_ptr(pool_shutdown_error(what));
    case exception_kind::not_shippable: return std::make_exception_ptr(not_shippable_error(what));
    case exception_kind::ferry_error: return std::make_exception_ptr(error(what));
    case exception_kind::cancelled: return std::make_exception_ptr(cancelled_error(what));
    case exception_kind::other:
      if (std::exception_ptr made = registered_exception(r.type_name, what)) return made;
      break;
  }
  return std::make_exception_ptr(task_error(r.type_name, what));
}

}  // namespace ferry::detail
