// Copyright ferry authors.
//
// Every exception ferry throws derives from ferry::error. Each message names
// what was wrong: the module path, the key, the byte offset, the expected and
// the found build-id. docs/api/errors.md lists when each one happens and what
// to do about it.
//
// Thread-safety: exception objects are immutable after construction.
#ifndef FERRY_SERIALIZE_ERROR_H_
#define FERRY_SERIALIZE_ERROR_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "serialize/internal/config.h"

namespace ferry {

// Base of all ferry errors.
class FERRY_SERIALIZE_EXPORT error : public std::runtime_error {
 public:
  explicit error(const std::string& message);
  ~error() override;
};

// The bytes are truncated, corrupt, or of another wire version. offset() is
// the position in the input where the problem was found.
class FERRY_SERIALIZE_EXPORT format_error : public error {
 public:
  format_error(std::size_t offset, std::string_view problem);
  ~format_error() override;
  std::size_t offset() const noexcept { return offset_; }

 private:
  std::size_t offset_;
};

// Base of the errors about the module (executable or shared object) that
// holds a closure's code. path() is the module path as recorded in the bytes.
class FERRY_SERIALIZE_EXPORT module_error : public error {
 public:
  module_error(std::string path, const std::string& message);
  ~module_error() override;
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

// The module policy refused the module's code: the module is not loaded
// and its path is outside every directory or file given to
// ferry::allow_module (the file was not opened); or, with `reason` saying
// so, it is loaded but outside the allowed set, and bytes nobody vouched
// for point into it (a function pointer, which is run only from an allowed
// module or when this process shipped that function itself).
class FERRY_SERIALIZE_EXPORT module_not_allowed_error : public module_error {
 public:
  explicit module_not_allowed_error(std::string path);
  // The message is "ferry: " and `reason`, which names the path.
  module_not_allowed_error(std::string path, std::string_view reason);
  ~module_not_allowed_error() override;
};

// The module is not loaded and no file was found at its path or under an
// allowed directory.
class FERRY_SERIALIZE_EXPORT module_not_found_error : public module_error {
 public:
  explicit module_not_found_error(std::string path);
  ~module_not_found_error() override;
};

// A file with the module's name was found, or is loaded in this process (a
// program or library rebuilt since the bytes were written), but was built
// differently: its GNU build-id differs from the one recorded. Ids are
// lower-case hex. path() is the path recorded in the bytes; examined() the
// file whose build-id was read (the last one, when several candidates
// were), which may be another.
class FERRY_SERIALIZE_EXPORT build_id_mismatch_error : public module_error {
 public:
  build_id_mismatch_error(std::string path, std::string expected_hex, std::string found_hex,
                          std::string examined = {});
  ~build_id_mismatch_error() override;
  const std::string& expected() const noexcept { return expected_; }
  const std::string& found() const noexcept { return found_; }
  const std::string& examined() const noexcept { return examined_; }

 private:
  std::string expected_;
  std::string found_;
  std::string examined_;
};

// The module file exists and is allowed but cannot be used: it is not an ELF
// shared object, it is the executable of another program, or the dynamic
// loader refused it (reason in the message).
class FERRY_SERIALIZE_EXPORT module_load_error : public module_error {
 public:
  module_load_error(std::string path, std::string_view reason);
  ~module_load_error() override;
};

// The module was found but registers nothing under the key (or the key names
// another type than the one recorded).
class FERRY_SERIALIZE_EXPORT unknown_key_error : public error {
 public:
  unknown_key_error(std::uint64_t key, std::string module_path, std::string_view detail);
  ~unknown_key_error() override;
  std::uint64_t key() const noexcept { return key_; }
  const std::string& module_path() const noexcept { return module_path_; }

 private:
  std::uint64_t key_;
  std::string module_path_;
};

// The bytes hold a callable of another signature than the one asked for.
class FERRY_SERIALIZE_EXPORT type_mismatch_error : public error {
 public:
  type_mismatch_error(std::string_view expected, std::string_view found);
  ~type_mismatch_error() override;
};

// A callable cannot be shipped for a reason only known at run time: its code
// is not inside any loaded module, its module has no GNU build-id, or a
// function pointer's target cannot be verified.
class FERRY_SERIALIZE_EXPORT not_shippable_error : public error {
 public:
  explicit not_shippable_error(const std::string& message);
  ~not_shippable_error() override;
};

// Signed bytes (ferry::dumps with a signing_key) did not verify: they were
// made with another key or changed after signing, or they are not signed
// but loads was given a key. Nothing in them was decoded.
class FERRY_SERIALIZE_EXPORT authentication_error : public error {
 public:
  explicit authentication_error(std::string_view problem);
  ~authentication_error() override;
};

// An empty ferry::function was called, or given to a pool to run (the
// task's future fails with this; nothing is sent).
class FERRY_SERIALIZE_EXPORT bad_function_call : public error {
 public:
  bad_function_call();
  explicit bad_function_call(const std::string& message);
  ~bad_function_call() override;
};

namespace detail {
// What ferry's templates throw (archive.h, function.h, dumps.h), out of line.
[[noreturn]] FERRY_SERIALIZE_EXPORT void throw_truncated(std::size_t offset, std::size_t wanted,
                                               std::size_t left);
[[noreturn]] FERRY_SERIALIZE_EXPORT void throw_bad_length(std::size_t offset, std::uint64_t length,
                                                std::size_t left);
[[noreturn]] FERRY_SERIALIZE_EXPORT void throw_trailing_bytes(std::size_t offset, std::size_t count);
[[noreturn]] FERRY_SERIALIZE_EXPORT void throw_bad_bool(std::size_t offset, unsigned value);
[[noreturn]] FERRY_SERIALIZE_EXPORT void throw_cereal_error(std::size_t offset, const char* what);
[[noreturn]] FERRY_SERIALIZE_EXPORT void throw_unserializable_signature(const char* signature);
}  // namespace detail

}  // namespace ferry

#endif  // FERRY_SERIALIZE_ERROR_H_
