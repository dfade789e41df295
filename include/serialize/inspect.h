// Copyright ferry authors.
//
// ferry::inspect(bytes) says what ferry::loads would need to load a
// ferry::function from these bytes, and whether this process can give it,
// without loading or running anything: the function's kind, its module's
// recorded path and build-id, and whether that module is loaded, loadable
// (from which file, under this process's policy) or refused (with the error
// loads would throw). Use it first when loads fails, or before trusting
// bytes from elsewhere; `ferry-inspect FILE` prints it.
//
//   ferry::inspection what = ferry::inspect(bytes);
//   std::cout << ferry::to_string(what);
//
// What it cannot say: the function's state may name more modules (a nested
// function, a function pointer), which only the code of the function's type
// can read; loads checks each as it reads it. A signed frame is inspected
// without checking its signature (inspection::is_signed says so).
//
// Thread-safety: may be called from any thread.
#ifndef FERRY_SERIALIZE_INSPECT_H_
#define FERRY_SERIALIZE_INSPECT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "serialize/internal/config.h"

namespace ferry {

struct inspection {
  enum class module_status { none, loaded, loadable, refused };

  bool is_signed = false;     // magic FRS; its signature was not checked
  std::string kind;           // "empty", "keyed", "named" or "pointer"
  std::string module_path;    // as recorded in the bytes
  std::string build_id;       // hex; empty for a named function
  module_status status = module_status::none;
  std::string file;           // loaded: where from; loadable: the file loads would open
  std::string refusal;        // refused: the error loads would throw, its what()
  std::uint64_t key = 0;      // keyed: offset of the type's registration in its
                              // module; pointer: offset of the function
  std::string stable_name;    // named
  // Known once the module is loaded (for a pointer, always): demangled.
  std::string signature;      // e.g. "int (int)"
  std::string type_name;      // the closure type
};

// Reads the frame and the function record's identity. Throws
// ferry::format_error when the bytes are not a frame (dumps' or signed) of a
// ferry::function; never loads a module or runs code.
FERRY_EXPORT inspection inspect(std::string_view bytes);

// The inspection as a few lines of text, one fact per line.
FERRY_EXPORT std::string to_string(const inspection& what);

}  // namespace ferry

#endif  // FERRY_SERIALIZE_INSPECT_H_
