// Copyright ferry authors. Internal: readable C++ names, for messages and for
// checking a function symbol's parameters. Exported from libferry_serialize
// for libferry_executor (task exceptions); not installed.
#ifndef FERRY_SRC_SERIALIZE_CODE_DEMANGLE_H_
#define FERRY_SRC_SERIALIZE_CODE_DEMANGLE_H_

#include <string>

#include "internal/export.h"

namespace ferry::detail {

// The demangled form of a mangled name (a type's typeid().name() or a
// symbol), or the name itself when it is not a mangled C++ name; *ok, when
// given, says which.
FERRY_INTERNAL_EXPORT std::string demangle(const char* mangled, bool* ok = nullptr);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_CODE_DEMANGLE_H_
