// Copyright ferry authors.
//
// ferry::inspect(bytes) says what ferry::loads would need to load a
// ferry::function from these bytes, and whether this process can give it,
// without loading or running anything: the function's kind, and every
// module the bytes name (the one holding the function's code, or for a
// shared record each that has it, and those named by its captured state:
// nested functions, function pointers), each with its recorded path and
// build-id and whether it is loaded, loadable (from which file, under this
// process's policy) or refused (with the error loads would throw). Use it
// first when loads fails, or before trusting bytes from elsewhere;
// `ferry-inspect FILE` prints it.
//
//   ferry::inspection what = ferry::inspect(bytes);
//   std::cout << ferry::to_string(what);
//
// A signed frame is inspected without checking its signature
// (inspection::is_signed says so).
//
// Thread-safety: may be called from any thread.
#ifndef FERRY_SERIALIZE_INSPECT_H_
#define FERRY_SERIALIZE_INSPECT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "serialize/internal/config.h"

namespace ferry {

struct inspection {
  enum class module_status { loaded, loadable, refused };

  struct module {
    std::string path;       // as recorded in the bytes
    std::string build_id;   // hex; for a named function, the sender's build
    // Holds the function's own code (for a shared record, any one such
    // module will do); otherwise named by the function's state.
    bool holds_function = false;
    std::uint64_t key = 0;  // holds_function: offset of the type's registration
                            // (keyed, shared) or of the function (pointer); 0
                            // for a named function, which any build will do
    module_status status = module_status::refused;
    std::string file;       // loaded: where from; loadable: the file loads would open
    std::string refusal;    // refused: the error loads would throw, its what()
  };

  bool is_signed = false;    // magic FRS; its signature was not checked
  std::string kind;          // "empty", "keyed", "named", "pointer" or "shared"
  std::vector<module> modules;  // in the order the bytes name them
  std::string stable_name;   // named
  // Known once a module holding the function is loaded (for a pointer,
  // always): demangled.
  std::string signature;     // e.g. "int (int)"
  std::string type_name;     // the closure type
};

// Reads the frame, its module directory and the function record's identity.
// Throws ferry::format_error when the bytes are not a frame (dumps' or
// signed) of a ferry::function; never loads a module or runs code.
FERRY_SERIALIZE_EXPORT inspection inspect(std::string_view bytes);

// The inspection as a few lines of text, one fact per line.
FERRY_SERIALIZE_EXPORT std::string to_string(const inspection& what);

}  // namespace ferry

#endif  // FERRY_SERIALIZE_INSPECT_H_
