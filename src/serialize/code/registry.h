// Copyright ferry authors. Internal: lookups in the registry (registry.cc).
#ifndef FERRY_SRC_SERIALIZE_CODE_REGISTRY_H_
#define FERRY_SRC_SERIALIZE_CODE_REGISTRY_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include <serialize/internal/registry.h>

namespace ferry::detail {

// The cross-check hash written beside a key.
std::uint64_t type_hash(const char* type_name, const char* signature);

// The entry registered at exactly this address, or nullptr. Never
// dereferences the address itself.
const registry_entry* find_entry(std::uintptr_t address);

// An entry, in any loaded module, that can make a callable calling a
// function pointer of this signature (mangled), or nullptr.
const registry_entry* find_pointer_caller(std::string_view signature);

// The entries, one per module, of entry's type and signature when the
// type's name is unique in a program (registry_entry::unique_name) and more
// than one module registers it; empty otherwise.
std::vector<const registry_entry*> find_same_type(const registry_entry& entry);

// The entries registered under a stable name (ferry::named), in any module.
std::vector<const registry_entry*> find_named(std::string_view name);

// The module holding entry, found once and cached in the entry.
const module_record& module_of(const registry_entry& entry);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_CODE_REGISTRY_H_
