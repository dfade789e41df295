// Copyright ferry authors.
#include "serialize/code/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace ferry::detail {

std::string demangle(const char* mangled, bool* ok) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), &std::free);
  const bool demangled = status == 0 && out != nullptr;
  if (ok != nullptr) *ok = demangled;
  return demangled ? std::string(out.get()) : std::string(mangled);
}

}  // namespace ferry::detail
