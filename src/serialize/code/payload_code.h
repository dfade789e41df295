// Copyright ferry authors. Internal: what only the executor asks of the
// serialization layer. Exported from libferry_serialize for
// libferry_executor; not installed, not for users.
#ifndef FERRY_SRC_SERIALIZE_EXECUTOR_SUPPORT_H_
#define FERRY_SRC_SERIALIZE_EXECUTOR_SUPPORT_H_

#include <memory>
#include <string>
#include <vector>

#include "internal/export.h"
#include <serialize/archive.h>
#include <serialize/internal/registry.h>

namespace ferry::detail {

// Reads a ferry::function of any signature (tag, identity, state), as a
// worker that does not know the task's types must; null for an empty one.
// Throws like ferry::loads.
FERRY_INTERNAL_EXPORT callable_ref<const callable_any> load_any_function(input_archive& ar);

// Whether the payload written so far names code that only the main
// executable has: a process running another program cannot load it.
FERRY_INTERNAL_EXPORT bool names_main_program(output_archive& ar);

// A module that a payload written so far names.
struct module_file {
  std::string path;      // as loaded here
  std::string build_id;  // raw
  bool main_program;     // this process's executable
};
FERRY_INTERNAL_EXPORT std::vector<module_file> modules_named(output_archive& ar);

// The raw GNU build-id of the ELF file at `path`, empty if it has none.
// Throws ferry::module_load_error when the file cannot be read as a 64-bit
// ELF object.
FERRY_INTERNAL_EXPORT std::string file_build_id(const std::string& path);

// Whether this process's executable imports the dynamic symbol `mangled`
// (it calls that function of a shared library). False if it cannot tell.
FERRY_INTERNAL_EXPORT bool program_imports(const char* mangled) noexcept;

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_EXECUTOR_SUPPORT_H_
