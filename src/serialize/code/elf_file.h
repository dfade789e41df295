// Copyright ferry authors. Internal: reading ELF files and images safely.
//
// Everything here treats its input as hostile: every offset and size is
// checked against the bytes present before it is used, so a truncated or
// crafted file gives an error, never a crash.
#ifndef FERRY_SRC_SERIALIZE_CODE_ELF_FILE_H_
#define FERRY_SRC_SERIALIZE_CODE_ELF_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "internal/export.h"

namespace ferry::detail::elf {

// The GNU build-id in a block of ELF notes, or "" if there is none.
std::string build_id_from_notes(const unsigned char* notes, std::size_t size);

struct file_facts {
  std::string build_id;  // raw bytes; empty if none
  bool is_program;       // an executable (ET_EXEC, or a PIE with an interpreter)
};

// Reads the facts of the ELF file at path without loading it. Throws
// ferry::module_load_error (naming `path`) if it cannot be read or is not a
// 64-bit little-endian ELF file.
file_facts inspect(const std::string& path);

// Function symbols (STT_FUNC, defined) of the file, from .symtab and
// .dynsym: offset from the load base -> mangled name. Throws like inspect.
FERRY_INTERNAL_EXPORT std::unordered_map<std::uint64_t, std::string> function_symbols(const std::string& path);

// Whether the file's dynamic symbol table has an undefined (imported)
// symbol of this exact name. Throws like inspect.
bool imports_symbol(const std::string& path, std::string_view name);

}  // namespace ferry::detail::elf

#endif  // FERRY_SRC_SERIALIZE_CODE_ELF_FILE_H_
