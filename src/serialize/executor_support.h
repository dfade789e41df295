// Copyright ferry authors. Internal: what only the executor asks of the
// serialization layer. Exported from libferry_serialize for
// libferry_executor; not installed, not for users.
#ifndef FERRY_SRC_SERIALIZE_EXECUTOR_SUPPORT_H_
#define FERRY_SRC_SERIALIZE_EXECUTOR_SUPPORT_H_

#include <memory>

#include "serialize/archive.h"
#include "serialize/internal/config.h"
#include "serialize/internal/registry.h"

namespace ferry::detail {

// Reads a ferry::function of any signature (tag, identity, state), as a
// worker that does not know the task's types must; null for an empty one.
// Throws like ferry::loads.
FERRY_EXPORT std::shared_ptr<const callable_any> load_any_function(input_archive& ar);

// Whether the payload written so far names code that only the main
// executable has: a process running another program cannot load it.
FERRY_EXPORT bool names_main_program(output_archive& ar);

// Whether this process's executable imports the dynamic symbol `mangled`
// (it calls that function of a shared library). False if it cannot tell.
FERRY_EXPORT bool program_imports(const char* mangled) noexcept;

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_EXECUTOR_SUPPORT_H_
