// Copyright ferry authors.
#include "executor_support.h"

#include "archive_access.h"
#include "elf_file.h"
#include "loaded_modules_linux.h"
#include "module.h"
#include "serialize/internal/identity.h"

namespace ferry::detail {

std::shared_ptr<const callable_any> load_any_function(input_archive& ar) {
  const wire::function_tag tag = read_function_tag(ar);
  if (tag == wire::function_tag::empty) return nullptr;
  depth_guard depth(ar);
  const registry_entry& entry = read_entry(ar, tag, nullptr);
  return std::shared_ptr<const callable_any>(entry.make(ar));
}

bool names_main_program(output_archive& ar) {
  for (const module_record* m : archive_access::modules(ar))
    if (m->main_program) return true;
  return false;
}

bool program_imports(const char* mangled) noexcept {
  try {
    return elf::imports_symbol(executable_path(), mangled);
  } catch (...) {
    return false;
  }
}

}  // namespace ferry::detail
