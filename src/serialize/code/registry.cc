// Copyright ferry authors.
//
// The set of registry entries of every loaded module, keyed by address. It
// lives in this one shared library so that all modules share it.
#include "serialize/code/registry.h"

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "serialize/code/fork_guard.h"
#include "internal/mutex.h"
#include "serialize/code/module.h"

namespace ferry::detail {
namespace {

// Whether a type name, as the compiler wrote it, can only belong to one type
// in a program. Errs on the strict side: a name it refuses keeps the
// (module, key) identity, which is always right.
bool unique_in_program(const char* raw) {
  if (raw[0] == '*') return false;  // GCC: no external linkage
  const std::string_view name(raw);
  if (name.find("_GLOBAL__N") != name.npos) return false;  // an anonymous namespace
  if (name.find('$') != name.npos) return false;  // Clang's numbering of a file's lambdas
  const auto digit = [&](std::size_t i) {
    return i < name.size() && name[i] >= '0' && name[i] <= '9';
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    // L<length>: a name with internal linkage (also the start of some
    // template-argument literals, refused with them); Ut[n]_: an unnamed type.
    if (name[i] == 'L' && digit(i + 1)) return false;
    if (name.substr(i, 2) == "Ut" && (digit(i + 2) || name.substr(i + 2, 1) == "_")) return false;
  }
  return true;
}

std::uint64_t fnv1a(std::uint64_t h, const char* s) {
  for (; *s != '\0'; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 0x100000001b3ULL;
  return h;
}

class registry {
 public:
  static registry& instance() {
    static auto* r = new registry;  // never destroyed: modules unregister during exit
    return *r;
  }
  void add(const registry_entry* e) {
    mutex_lock lock(mu_);
    entries_[reinterpret_cast<std::uintptr_t>(e)] = e;
    if (e->stable_name != nullptr) names_[e->stable_name].push_back(e);
    if (e->make_from_code != nullptr) pointer_callers_[e->signature].push_back(e);
    if (e->unique_name) same_type_[e->type_hash].push_back(e);
  }
  void remove(const registry_entry* e) {
    mutex_lock lock(mu_);
    entries_.erase(reinterpret_cast<std::uintptr_t>(e));
    if (e->stable_name != nullptr) erase_from(names_, e->stable_name, e);
    if (e->make_from_code != nullptr) erase_from(pointer_callers_, e->signature, e);
    if (e->unique_name) {
      auto it = same_type_.find(e->type_hash);
      if (it != same_type_.end()) {
        std::erase(it->second, e);
        if (it->second.empty()) same_type_.erase(it);
      }
    }
  }
  void hold_for_fork(fork_phase phase) { apply_fork_phase(mu_, phase); }
  std::vector<const registry_entry*> named(std::string_view name) const {
    mutex_lock lock(mu_);
    auto it = names_.find(absl::string_view(name.data(), name.size()));
    return it == names_.end() ? std::vector<const registry_entry*>{} : it->second;
  }
  const registry_entry* pointer_caller(std::string_view signature) const {
    mutex_lock lock(mu_);
    auto it = pointer_callers_.find(absl::string_view(signature.data(), signature.size()));
    return it == pointer_callers_.end() ? nullptr : it->second.front();
  }
  // Called for every value written: allocates nothing when only e's own
  // module registers its type, the common case.
  std::vector<const registry_entry*> same_type(const registry_entry& e) const {
    mutex_lock lock(mu_);
    auto it = same_type_.find(e.type_hash);
    if (it == same_type_.end() || it->second.size() < 2) return {};
    std::vector<const registry_entry*> out;
    for (const registry_entry* peer : it->second)  // the hash is a cross-check, not a name
      if (std::strcmp(peer->type_name, e.type_name) == 0 && std::strcmp(peer->signature, e.signature) == 0)
        out.push_back(peer);
    return out;
  }
  const registry_entry* find(std::uintptr_t address) const {
    mutex_lock lock(mu_);
    auto it = entries_.find(address);
    return it == entries_.end() ? nullptr : it->second;
  }

 private:
  using entry_lists = absl::flat_hash_map<std::string, std::vector<const registry_entry*>>;

  static void erase_from(entry_lists& lists, const char* key, const registry_entry* e) {
    auto it = lists.find(key);
    if (it == lists.end()) return;
    std::erase(it->second, e);
    if (it->second.empty()) lists.erase(it);
  }

  mutable mutex mu_;
  absl::flat_hash_map<std::uintptr_t, const registry_entry*> entries_ ABSL_GUARDED_BY(mu_);
  entry_lists names_ ABSL_GUARDED_BY(mu_);            // by stable name
  entry_lists pointer_callers_ ABSL_GUARDED_BY(mu_);  // entries with make_from_code, by signature
  // Entries with unique names, by type hash (of the type and signature).
  absl::flat_hash_map<std::uint64_t, std::vector<const registry_entry*>> same_type_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void hold_registry_for_fork(fork_phase phase) { registry::instance().hold_for_fork(phase); }

std::uint64_t type_hash(const char* type_name, const char* signature) {
  return fnv1a(fnv1a(0xcbf29ce484222325ULL, type_name) * 0x100000001b3ULL, signature);
}

const registry_entry* find_entry(std::uintptr_t address) {
  return registry::instance().find(address);
}

const registry_entry* find_pointer_caller(std::string_view signature) {
  return registry::instance().pointer_caller(signature);
}

std::vector<const registry_entry*> find_same_type(const registry_entry& entry) {
  return registry::instance().same_type(entry);
}

std::vector<const registry_entry*> find_named(std::string_view name) {
  return registry::instance().named(name);
}

const module_record& module_of(const registry_entry& entry) {
  if (const module_record* m = entry.module.load(std::memory_order_acquire)) return *m;
  const module_record& m = module_containing(&entry);
  entry.module.store(&m, std::memory_order_release);
  return m;
}

registry_entry::registry_entry(const char* raw_type, const char* sig, make_fn mk,
                               const char* name, make_from_code_fn from_code) noexcept
    : type_name(raw_type[0] == '*' ? raw_type + 1 : raw_type),
      signature(sig),
      make(mk),
      make_from_code(from_code),
      stable_name(name),
      unique_name(unique_in_program(raw_type)),
      type_hash(detail::type_hash(type_name, sig)) {
  registry::instance().add(this);
}

registry_entry::~registry_entry() { registry::instance().remove(this); }

}  // namespace ferry::detail
