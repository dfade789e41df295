// Copyright ferry authors.
#include <serialize/error.h>

#include <utility>

#include "serialize/code/demangle.h"

namespace ferry {

error::error(const std::string& message) : std::runtime_error(message) {}
error::~error() = default;

format_error::format_error(std::size_t offset, std::string_view problem)
    : error("ferry: bad bytes at offset " + std::to_string(offset) + ": " + std::string(problem)),
      offset_(offset) {}
format_error::~format_error() = default;

module_error::module_error(std::string path, const std::string& message)
    : error(message), path_(std::move(path)) {}
module_error::~module_error() = default;

module_not_allowed_error::module_not_allowed_error(std::string path)
    : module_error(path, "ferry: module '" + path +
                             "' is not loaded and not allowed; call ferry::allow_module() with it "
                             "or its directory if this process should load it") {}
module_not_allowed_error::module_not_allowed_error(std::string path, std::string_view reason)
    : module_error(path, "ferry: " + std::string(reason)) {}
module_not_allowed_error::~module_not_allowed_error() = default;

module_not_found_error::module_not_found_error(std::string path)
    : module_error(path, "ferry: module '" + path +
                             "' is not loaded and was found neither at that path, nor in any "
                             "allowed directory, nor by its build-id in a search directory "
                             "(ferry::add_module_search_path)") {}
module_not_found_error::~module_not_found_error() = default;

build_id_mismatch_error::build_id_mismatch_error(std::string path, std::string expected_hex,
                                                 std::string found_hex, std::string examined)
    : module_error(path, "ferry: module '" + path + "'" +
                             (examined.empty() || examined == path
                                  ? std::string()
                                  : " was looked for at '" + examined + "', which") +
                             " has build-id " +
                             (found_hex.empty() ? std::string("(none)") : found_hex) +
                             " but the bytes were made with build-id " + expected_hex +
                             "; sender and receiver must run the same build of that module (bytes "
                             "kept across builds need a stable name: ferry::named)"),
      expected_(std::move(expected_hex)),
      found_(std::move(found_hex)),
      examined_(examined.empty() ? this->path() : std::move(examined)) {}
build_id_mismatch_error::~build_id_mismatch_error() = default;

module_load_error::module_load_error(std::string path, std::string_view reason)
    : module_error(path, "ferry: cannot load module '" + path + "': " + std::string(reason)) {}
module_load_error::~module_load_error() = default;

unknown_key_error::unknown_key_error(std::uint64_t key, std::string module_path,
                                     std::string_view detail)
    : error("ferry: module '" + module_path + "' registers no callable under key " +
            std::to_string(key) + (detail.empty() ? "" : ": ") + std::string(detail)),
      key_(key),
      module_path_(std::move(module_path)) {}
unknown_key_error::~unknown_key_error() = default;

type_mismatch_error::type_mismatch_error(std::string_view expected, std::string_view found)
    : error("ferry: the bytes hold a callable of signature '" + std::string(found) +
            "' but '" + std::string(expected) + "' was asked for") {}
type_mismatch_error::~type_mismatch_error() = default;

not_shippable_error::not_shippable_error(const std::string& message) : error(message) {}
not_shippable_error::~not_shippable_error() = default;

authentication_error::authentication_error(std::string_view problem)
    : error("ferry: authentication failed: " + std::string(problem)) {}
authentication_error::~authentication_error() = default;

bad_function_call::bad_function_call() : error("ferry: call of an empty ferry::function") {}
bad_function_call::bad_function_call(const std::string& message) : error(message) {}
bad_function_call::~bad_function_call() = default;

}  // namespace ferry

namespace ferry::detail {

void throw_truncated(std::size_t offset, std::size_t wanted, std::size_t left) {
  throw format_error(offset, "truncated: " + std::to_string(wanted) + " bytes expected, " +
                                 std::to_string(left) + " left");
}

void throw_bad_length(std::size_t offset, std::uint64_t length, std::size_t left) {
  throw format_error(offset, "length " + std::to_string(length) + " is more than the " +
                                 std::to_string(left) + " bytes left");
}

void throw_trailing_bytes(std::size_t offset, std::size_t count) {
  throw format_error(offset, std::to_string(count) + " unexpected bytes after the value");
}

void throw_bad_bool(std::size_t offset, unsigned value) {
  throw format_error(offset, "a bool of value " + std::to_string(value) + ", neither 0 nor 1");
}

void throw_cereal_error(std::size_t offset, const char* what) {
  throw format_error(offset, std::string("invalid value: ") + what);
}

void throw_unserializable_signature(const char* signature) {
  throw not_shippable_error("ferry: a function of signature '" + demangle(signature) +
                            "' cannot be called across processes: its arguments or result "
                            "cannot be serialized (or default-constructed) by the code where the "
                            "function was made; give those types cereal functions visible there");
}

}  // namespace ferry::detail
