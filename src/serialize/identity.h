// Copyright ferry authors. Internal: what identity.cc offers within
// libferry_serialize beyond include/serialize/internal/identity.h: reading
// a function record's identity without resolving anything, for
// ferry::inspect.
#ifndef FERRY_SRC_SERIALIZE_IDENTITY_H_
#define FERRY_SRC_SERIALIZE_IDENTITY_H_

#include <cstdint>
#include <string>
#include <utility>

#include "module.h"
#include "serialize/archive.h"
#include "serialize/internal/registry.h"
#include "serialize/wire_format.h"

namespace ferry::detail {

// A function record's identity as the bytes state it.
struct recorded_identity {
  wire::function_tag tag = wire::function_tag::empty;
  std::string module_path;   // keyed and named
  std::string build_id;      // raw; keyed only
  std::uint64_t key = 0;     // keyed: the registration's offset; pointer: the code's
  std::string signature;     // pointer only: mangled
  std::uint64_t type_hash = 0;
  std::string stable_name;   // named only
};

// Reads the identity of the first function record of a payload, loading
// and resolving nothing. Throws ferry::format_error.
recorded_identity peek_identity(input_archive& ar);

// A pointer record after its tag, whatever its signature: the signature
// (mangled) and the verified address. Throws like read_code_address.
std::pair<std::string, const void*> read_any_pointer_record(input_archive& ar);

// The entry a keyed identity names in the loaded module m, or nullptr when
// m registers none under the key for the recorded type.
const registry_entry* find_recorded_entry(const recorded_identity& id, const module_record& m);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_IDENTITY_H_
