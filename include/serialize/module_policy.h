// Copyright ferry authors.
//
// Which modules may ferry::loads bring into this process. When bytes name a
// module (an executable or shared object) by path and GNU build-id:
//   1. a module already loaded with that build-id is used, wherever it was
//      loaded from;
//   2. otherwise the module is loaded through Boost.DLL only from an allowed
//      place: its recorded path if that path lies under an allowed directory
//      (or is an allowed file), else a file of the same name directly in an
//      allowed directory. The file's build-id is read and compared before it
//      is loaded, so a different build never runs its initializers;
//   3. nothing else: a path outside the allowed set is never opened.
// Paths are compared after resolving symlinks and "..", so neither leads out
// of an allowed directory. Nothing is allowed by default.
//
// Example:
//   int main(int argc, char** argv) {
//     ferry::allow_module("/opt/app/plugins");     // a directory
//     ferry::allow_module("/opt/extra/libmath.so");  // or one file
//     ...
//   }
//
// Thread-safety: all functions may be called from any thread; a module being
// loaded by one thread sees the policy as it was when its load began.
#ifndef FERRY_SERIALIZE_MODULE_POLICY_H_
#define FERRY_SERIALIZE_MODULE_POLICY_H_

#include <filesystem>
#include <vector>

#include "serialize/internal/config.h"

namespace ferry {

// Allows loading modules from path_or_directory. Throws ferry::error if it
// does not exist.
FERRY_EXPORT void allow_module(const std::filesystem::path& path_or_directory);

// The allowed files and directories, resolved to canonical paths.
FERRY_EXPORT std::vector<std::filesystem::path> allowed_modules();

// Forgets every allowance. Modules already loaded stay loaded and usable.
FERRY_EXPORT void clear_allowed_modules();

}  // namespace ferry

#endif  // FERRY_SERIALIZE_MODULE_POLICY_H_
