// Copyright ferry authors.
#include "serialize/code/payload_code.h"

#include "serialize/frame/archive_access.h"
#include "serialize/code/demangle.h"
#include "serialize/code/registry.h"
#include <serialize/error.h>
#include "serialize/code/elf_file.h"
#include "serialize/code/identity.h"
#include "serialize/code/loaded_modules_linux.h"
#include "serialize/code/module.h"
#include <serialize/internal/identity.h>

namespace ferry::detail {
namespace {

// A function pointer record, read without knowing its signature: some
// loaded module must have the code that calls a pointer of that signature.
callable_ref<const callable_any> load_any_pointer(input_archive& ar) {
  const auto [signature, code] = read_any_pointer_record(ar);
  const registry_entry* caller = find_pointer_caller(signature);
  if (caller == nullptr)
    throw not_shippable_error(
        "ferry: no module loaded here can call a function pointer of signature '" +
        demangle(signature.c_str()) +
        "' without knowing that signature (a generic worker, ferry-worker, does not): wrap the "
        "call in a capture-less lambda, which ships the code that calls it, or use "
        "start_method::spawn or start_method::fork");
  return callable_ref<const callable_any>(caller->make_from_code(code));
}

}  // namespace

callable_ref<const callable_any> load_any_function(input_archive& ar) {
  const wire::function_tag tag = read_function_tag(ar);
  if (tag == wire::function_tag::empty) return nullptr;
  depth_guard depth(ar);
  if (tag == wire::function_tag::pointer) return load_any_pointer(ar);
  const registry_entry& entry = read_entry(ar, tag, nullptr);
  return callable_ref<const callable_any>(entry.make(ar));
}

bool names_main_program(output_archive& ar) { return archive_access::needs_main_program(ar); }

std::vector<module_file> modules_named(output_archive& ar) {
  std::vector<module_file> out;
  for (const module_record* m : archive_access::modules(ar))
    out.push_back({m->path, m->build_id, m->main_program});
  return out;
}

std::string file_build_id(const std::string& path) { return elf::inspect(path).build_id; }

bool program_imports(const char* mangled) noexcept {
  try {
    return elf::imports_symbol(executable_path(), mangled);
  } catch (...) {
    return false;
  }
}

}  // namespace ferry::detail
