// Copyright ferry authors. Internal: modules, the unit of code identity.
//
// A module is the main executable or a shared object loaded in this process.
// It is named on the wire by its path and GNU build-id; code inside it by an
// offset from its load base (dl_iterate_phdr's dlpi_addr, 0 for a non-PIE
// executable).
#ifndef FERRY_SRC_SERIALIZE_CODE_MODULE_H_
#define FERRY_SRC_SERIALIZE_CODE_MODULE_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ferry::detail {

struct module_record {
  std::string path;      // as loaded; /proc/self/exe resolved for the executable
  std::string build_id;  // raw bytes; never empty for a record handed out
  std::uintptr_t base;
  bool main_program = false;  // the executable of this process

  // Function symbols (offset -> mangled name), read from the file on first
  // use by a function pointer.
  const std::unordered_map<std::uint64_t, std::string>& function_symbols() const;

 private:
  mutable std::once_flag symbols_once_;
  mutable std::unordered_map<std::uint64_t, std::string> symbols_;
};

// The module whose mapped segments contain address. Records live for the
// process's lifetime. Throws ferry::not_shippable_error if no module contains
// it or the module has no build-id.
const module_record& module_containing(const void* address);

// The loaded module with this build-id, or nullptr; loads nothing.
const module_record* find_loaded_module(std::string_view build_id);

// The loaded module with this build-id, loading it (from `path` or an allowed
// directory) when the policy allows, or from `path` itself when the bytes'
// source vouches for it. Throws the module errors of error.h.
const module_record& resolve_module(std::string_view path, std::string_view build_id,
                                    bool vouched);

// What resolve_module would do, without loading anything.
struct module_probe {
  enum class verdict { loaded, loadable, refused } outcome;
  const module_record* record = nullptr;  // loaded
  std::string file;                       // loaded: its path; loadable: the file it would load
  std::string reason;                     // refused: what resolve_module would throw
};
module_probe probe_module(std::string_view path, std::string_view build_id);

// Loads the module recorded at `path` (from there or an allowed directory)
// whatever its build-id, for callables identified by a stable name. Does
// nothing if a module is already loaded from the file it would load. Throws
// the module errors of error.h but build_id_mismatch_error.
void load_module_by_path(const std::string& path);

// Lower-case hex of raw bytes, for messages.
std::string to_hex(std::string_view bytes);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_CODE_MODULE_H_
