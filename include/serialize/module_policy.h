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
//   3. otherwise, a file with that build-id in a search directory
//      (add_module_search_path);
//   4. nothing else: a path outside the allowed set is never opened.
// Paths are compared after resolving symlinks and "..", so neither leads out
// of an allowed directory. Nothing is allowed by default.
//
// Some sources vouch for the modules their bytes name, which may then be
// loaded from the recorded path without being allowed, the build-id still
// checked first: a task from this process's own pool (its message verified
// under the pool's key), and bytes signed with a key given to
// trust_signed_code. docs/api/serialize.md has the table.
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
#include "serialize/signing_key.h"

namespace ferry {

// Allows loading modules from path_or_directory. Throws ferry::error if it
// does not exist.
FERRY_SERIALIZE_EXPORT void allow_module(const std::filesystem::path& path_or_directory);

// The allowed files and directories, resolved to canonical paths.
FERRY_SERIALIZE_EXPORT std::vector<std::filesystem::path> allowed_modules();

// Searches `directory` for a module by its build-id when the recorded path is
// missing or holds another build (the same build installed under another
// prefix, in a container, on another host): every regular file directly in
// it, and the debuginfod layout `directory/.build-id/ab/cdef...` (the id's
// first byte in hex, then the rest). Files are indexed on the first search
// and again when the directory changes. A search directory is allowed, as by
// allow_module; files that resolve outside it (a symlink) are not used.
// Throws ferry::error if it is not a directory.
FERRY_SERIALIZE_EXPORT void add_module_search_path(const std::filesystem::path& directory);

// The search directories, canonical, in the order they were added.
FERRY_SERIALIZE_EXPORT std::vector<std::filesystem::path> module_search_paths();

// Lets bytes signed with `key` (ferry::loads(bytes, key)) load the modules
// they name from their recorded paths, as if allowed; a file of another
// build is still refused. Only for a key whose holders may run code in this
// process: whoever has it can make loads run any function of any module
// whose file is on this machine, as it was built. Unsigned bytes, and bytes
// under another key, still need the allow-list.
FERRY_SERIALIZE_EXPORT void trust_signed_code(const signing_key& key);

// Forgets every allowance, search directory and trusted key. Modules already
// loaded stay loaded and usable.
FERRY_SERIALIZE_EXPORT void clear_allowed_modules();


}  // namespace ferry

#endif  // FERRY_SERIALIZE_MODULE_POLICY_H_
