// Copyright ferry authors. Internal: what identity.cc offers within
// libferry_serialize beyond include/serialize/internal/identity.h: reading
// a function record's identity without resolving anything, for
// ferry::inspect.
#ifndef FERRY_SRC_SERIALIZE_CODE_IDENTITY_H_
#define FERRY_SRC_SERIALIZE_CODE_IDENTITY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "serialize/code/module.h"
#include <serialize/archive.h>
#include <serialize/internal/registry.h>
#include <serialize/wire_format.h>

namespace ferry::detail {

// A function record's identity as the bytes state it.
struct recorded_identity {
  wire::function_tag tag = wire::function_tag::empty;
  std::string stable_name;   // named
  std::string signature;     // pointer: mangled
  // Each module holding the code, as an index into the payload's named
  // modules, with the key there (pointer: the offset; named: 0).
  std::vector<std::pair<std::size_t, std::uint64_t>> code;
  std::uint64_t type_hash = 0;  // keyed, shared
};

// Reads the identity of the first function record of a payload, loading
// and resolving nothing. Throws ferry::format_error.
recorded_identity peek_identity(input_archive& ar);

// A pointer record after its tag, whatever its signature: the signature
// (mangled) and the verified address. Throws like read_code_address.
std::pair<std::string, const void*> read_any_pointer_record(input_archive& ar);

// The entry that `key` names in the loaded module m if it is of the type
// `type_hash` stands for, else nullptr.
const registry_entry* find_entry_at(const module_record& m, std::uint64_t key,
                                    std::uint64_t type_hash);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_CODE_IDENTITY_H_
