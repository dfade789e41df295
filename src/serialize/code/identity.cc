// Copyright ferry authors.
//
// Coding the identity of code on the wire: module references, registry keys
// and function addresses (layout in serialize/wire_format.h).
#include <serialize/internal/identity.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_set.h>

#include "internal/mutex.h"
#include "serialize/frame/archive_access.h"
#include "serialize/code/demangle.h"
#include "serialize/code/fork_guard.h"
#include "serialize/code/identity.h"
#include "serialize/code/module.h"
#include "serialize/code/module_policy_internal.h"
#include "serialize/code/registry.h"
#include <serialize/error.h>

namespace ferry::detail {
namespace {

void write_bytes(output_archive& ar, std::string_view s) {
  const std::uint64_t n = s.size();
  ar(n);
  ar.saveBinary(s.data(), s.size());
}

// A length-prefixed byte string of at most `limit` bytes, as a view into
// the bytes being read (no copy).
std::string_view read_bounded_view(input_archive& ar, std::size_t limit, const char* what) {
  const std::size_t at = ar.offset();
  const std::uint64_t n = ar.load_count();
  if (n > limit)
    throw format_error(at, std::string(what) + " of " + std::to_string(n) +
                               " bytes is longer than the limit of " + std::to_string(limit));
  return {ar.take(static_cast<std::size_t>(n)), static_cast<std::size_t>(n)};
}

std::string read_bounded(input_archive& ar, std::size_t limit, const char* what) {
  return std::string(read_bounded_view(ar, limit, what));
}

// The number of modules a shared record lists, checked.
std::uint8_t read_shared_count(input_archive& ar) {
  const std::size_t at = ar.offset();
  std::uint8_t count;
  ar(count);
  if (count < 2 || count > wire::max_shared_modules)
    throw format_error(at, "a shared record lists " + std::to_string(count) +
                               " modules (expected 2 to " +
                               std::to_string(wire::max_shared_modules) + ")");
  return count;
}

// `required`: the code it names can run from this module alone (not one of
// a shared record's alternatives).
void write_module_ref(output_archive& ar, const module_record& m, bool required = true) {
  if (required && m.main_program) archive_access::needs_main_program(ar) = true;
  auto& named = archive_access::modules(ar);
  for (std::uint32_t i = 0; i < named.size(); ++i) {
    if (named[i] == &m) {
      ar(i);
      return;
    }
  }
  ar(static_cast<std::uint32_t>(named.size()));
  named.push_back(&m);
  if (archive_access::listed_at_end(ar)) return;  // write_module_directory names it
  write_bytes(ar, m.path);
  write_bytes(ar, m.build_id);
}

// The path and build-id that introduce a module the first time it is named.
std::pair<std::string_view, std::string_view> read_new_module(input_archive& ar) {
  const std::string_view path = read_bounded_view(ar, wire::max_module_path, "module path");
  const std::size_t id_at = ar.offset();
  const std::string_view build_id = read_bounded_view(ar, wire::max_build_id, "build-id");
  if (build_id.empty())
    throw format_error(id_at, "empty build-id for module '" + std::string(path) + "'");
  return {path, build_id};
}

// Reads a module reference without loading anything; returns its index in
// the payload's table of named modules.
std::size_t read_module_name(input_archive& ar) {
  const std::size_t at = ar.offset();
  std::uint32_t ref;
  ar(ref);
  auto& named = archive_access::modules(ar);
  if (ref < named.size()) {
    named[ref].referenced = true;
    return ref;
  }
  if (archive_access::listed_at_end(ar))
    throw format_error(at, "module reference " + std::to_string(ref) + " but the directory lists " +
                               std::to_string(named.size()) + " modules");
  if (ref != named.size())
    throw format_error(at, "module reference " + std::to_string(ref) + " but only " +
                               std::to_string(named.size()) + " modules were named before it");
  if (named.size() >= wire::max_modules_per_payload)
    throw format_error(at, "more than " + std::to_string(wire::max_modules_per_payload) +
                               " modules named in one payload");
  auto [path, build_id] = read_new_module(ar);
  named.push_back({path, build_id, nullptr, true});
  return ref;
}

const module_record& resolve_named(input_archive& ar, std::size_t index) {
  named_module& m = archive_access::modules(ar)[index];
  if (m.record == nullptr) m.record = &resolve_module(m.path, m.build_id, archive_access::vouched(ar));
  return *m.record;
}

const module_record& read_module_ref(input_archive& ar) {
  return resolve_named(ar, read_module_name(ar));
}

// The outermost trailing "(...)" of a demangled function name or type: its
// parameter list.
std::string_view parameter_list(std::string_view demangled) {
  const std::size_t close = demangled.rfind(')');
  if (close == std::string_view::npos) return {};
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (demangled[i] == ')') ++depth;
    if (demangled[i] == '(' && --depth == 0) return demangled.substr(i, close - i + 1);
  }
  return {};
}

// Functions already checked against a signature (checking demangles), and
// those this process shipped itself (read_code_address trusts these).
class verified_functions {
 public:
  bool contains(std::uintptr_t address, const char* type) const {
    mutex_lock lock(mu_);
    return set_.contains({address, type});
  }
  bool shipped(std::uintptr_t address, const char* type) const {
    mutex_lock lock(mu_);
    return shipped_.contains({address, type});
  }
  void hold_for_fork(fork_phase phase) { apply_fork_phase(mu_, phase); }
  void add(std::uintptr_t address, const char* type) {
    mutex_lock lock(mu_);
    set_.insert({address, type});
  }
  void add_shipped(std::uintptr_t address, const char* type) {
    mutex_lock lock(mu_);
    shipped_.insert({address, type});
  }

 private:
  mutable mutex mu_;
  absl::flat_hash_set<std::pair<std::uintptr_t, std::string>> set_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::pair<std::uintptr_t, std::string>> shipped_ ABSL_GUARDED_BY(mu_);
};

verified_functions& verified() {
  static auto* v = new verified_functions;
  return *v;
}

// Empty if the function at `offset` of m may be called as `function_type`,
// else the reason it may not.
std::string check_function(const module_record& m, std::uint64_t offset,
                           const char* function_type) {
  const std::uintptr_t address = m.base + offset;
  if (verified().contains(address, function_type)) return {};
  const auto& symbols = m.function_symbols();
  const auto it = symbols.find(offset);
  if (it == symbols.end())
    return "no function symbol starts at offset " + std::to_string(offset) +
           " (a stripped module cannot ship function pointers; wrap the call in a "
           "capture-less lambda)";
  bool mangled = false;
  const std::string name = demangle(it->second.c_str(), &mangled);
  if (!mangled)
    return "function '" + it->second +
           "' has C linkage, so its parameters cannot be checked; wrap the call in a "
           "capture-less lambda";
  const std::string type = demangle(function_type);
  if (parameter_list(name) != parameter_list(type))
    return "function '" + name + "' does not take the parameters of '" + type + "'";
  verified().add(address, function_type);
  return {};
}

}  // namespace

void hold_verified_for_fork(fork_phase phase) { verified().hold_for_fork(phase); }

namespace {

bool in_allowed_set(const module_record& m) {
  std::error_code ec;
  const std::filesystem::path file = std::filesystem::canonical(m.path, ec);
  if (ec) return false;
  const std::vector<std::string> allowed = allowed_candidates(m.path);
  return std::find(allowed.begin(), allowed.end(), file.string()) != allowed.end();
}

}  // namespace

namespace {

std::uint64_t key_of(const registry_entry& entry, const module_record& m) {
  return reinterpret_cast<std::uintptr_t>(&entry) - m.base;
}

// The modules registering entry's type, each with its entry, when the name
// is unique in a program and more than one module has it: entry's own
// first, the main executable last (a process running another program
// cannot load it). Empty otherwise.
std::vector<std::pair<const module_record*, const registry_entry*>> modules_sharing(
    const registry_entry& entry, const module_record& own) {
  std::vector<std::pair<const module_record*, const registry_entry*>> found;
  if (!entry.unique_name) return found;
  const std::vector<const registry_entry*> peers = find_same_type(entry);
  if (peers.size() < 2) return found;
  found.emplace_back(&own, &entry);
  for (const registry_entry* peer : peers) {
    if (peer == &entry) continue;
    const module_record& m = module_of(*peer);
    for (const auto& [seen, e] : found)
      if (seen == &m) return {};  // two types of one name in one module: not unique after all
    found.emplace_back(&m, peer);
  }
  // The others in a canonical order, not the order the modules were loaded
  // in, so that the bytes do not depend on it.
  std::sort(found.begin() + 1, found.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first->path, a.first->build_id) < std::tie(b.first->path, b.first->build_id);
  });
  if (found.size() > wire::max_shared_modules) found.resize(wire::max_shared_modules);
  if (own.main_program) std::rotate(found.begin(), found.begin() + 1, found.end());
  return found;
}

}  // namespace

void write_entry(output_archive& ar, const registry_entry& entry) {
  const module_record& m = module_of(entry);
  if (entry.stable_name != nullptr) {
    ar(static_cast<std::uint8_t>(wire::function_tag::named));
    write_bytes(ar, entry.stable_name);
    write_module_ref(ar, m, false);  // any module registering the name will do
    return;
  }
  const auto sharing = modules_sharing(entry, m);
  if (!sharing.empty()) {
    ar(static_cast<std::uint8_t>(wire::function_tag::shared),
       static_cast<std::uint8_t>(sharing.size()));
    for (const auto& [module, e] : sharing) {
      write_module_ref(ar, *module, false);
      ar(key_of(*e, *module));
    }
    ar(entry.type_hash);
    return;
  }
  ar(static_cast<std::uint8_t>(wire::function_tag::keyed));
  write_module_ref(ar, m);
  ar(key_of(entry, m), entry.type_hash);
}

namespace {

// The entry registered under `name` for `signature`, or nullptr.
const registry_entry* find_named_entry(const std::string& name, const char* signature,
                                       const std::string& path) {
  const registry_entry* found = nullptr;
  for (const registry_entry* e : find_named(name)) {
    if (signature != nullptr && std::strcmp(e->signature, signature) != 0) continue;
    if (found != nullptr && std::strcmp(found->type_name, e->type_name) != 0)
      throw unknown_key_error(0, path,
                              "the name '" + name + "' is registered by two different types, " +
                                  demangle(found->type_name) + " and " + demangle(e->type_name));
    found = found != nullptr ? found : e;
  }
  return found;
}

// A named record after its tag. Any loaded module registering the name will
// do, whatever its build. Else the recorded module is loaded: the recorded
// build when the bytes' source vouches for it, else any build the policy
// allows at its path.
const registry_entry& read_named_entry(input_archive& ar, const char* signature) {
  const std::string name = read_bounded(ar, wire::max_stable_name, "stable name");
  const std::size_t index = read_module_name(ar);
  const std::string path(archive_access::modules(ar)[index].path);
  const auto found = [&]() -> const registry_entry* {
    if (const registry_entry* e = find_named_entry(name, signature, path)) return e;
    if (signature != nullptr && !find_named(name).empty())
      throw type_mismatch_error(demangle(signature), demangle(find_named(name).front()->signature));
    return nullptr;
  };
  if (const registry_entry* e = found()) return *e;
  std::exception_ptr vouched_failure;
  if (archive_access::vouched(ar)) {
    try {
      resolve_named(ar, index);
    } catch (const error&) {
      vouched_failure = std::current_exception();
    }
    if (const registry_entry* e = found()) return *e;
  }
  try {
    load_module_by_path(path);
  } catch (const error&) {
    if (vouched_failure) std::rethrow_exception(vouched_failure);
    throw;
  }
  if (const registry_entry* e = found()) return *e;
  throw unknown_key_error(0, path, "no loaded module registers the stable name '" + name + "'");
}

}  // namespace

void write_pointer_record(output_archive& ar, const void* code, const char* signature) {
  ar(static_cast<std::uint8_t>(wire::function_tag::pointer));
  write_bytes(ar, signature);
  write_code_address(ar, code, signature);
}

const void* read_pointer_record(input_archive& ar, const char* signature) {
  const std::string recorded = read_bounded(ar, wire::max_signature, "signature");
  if (recorded != signature) throw type_mismatch_error(demangle(signature), demangle(recorded.c_str()));
  return read_code_address(ar, signature);
}

std::pair<std::string, const void*> read_any_pointer_record(input_archive& ar) {
  std::string signature = read_bounded(ar, wire::max_signature, "signature");
  const void* code = read_code_address(ar, signature.c_str());
  return {std::move(signature), code};
}

recorded_identity peek_identity(input_archive& ar) {
  recorded_identity id;
  id.tag = read_function_tag(ar);
  switch (id.tag) {
    case wire::function_tag::empty:
      break;
    case wire::function_tag::named:
      id.stable_name = read_bounded(ar, wire::max_stable_name, "stable name");
      id.code.emplace_back(read_module_name(ar), 0);
      break;
    case wire::function_tag::pointer: {
      id.signature = read_bounded(ar, wire::max_signature, "signature");
      const std::size_t index = read_module_name(ar);
      std::uint64_t offset;
      ar(offset);
      id.code.emplace_back(index, offset);
      break;
    }
    case wire::function_tag::keyed:
    case wire::function_tag::shared: {
      std::uint8_t count = 1;
      if (id.tag == wire::function_tag::shared) count = read_shared_count(ar);
      for (std::uint8_t i = 0; i < count; ++i) {
        const std::size_t index = read_module_name(ar);
        std::uint64_t key;
        ar(key);
        id.code.emplace_back(index, key);
      }
      ar(id.type_hash);
      break;
    }
  }
  return id;
}

const registry_entry* find_entry_at(const module_record& m, std::uint64_t key,
                                    std::uint64_t type_hash) {
  const registry_entry* entry = find_entry(m.base + key);
  if (entry == nullptr || entry->type_hash != type_hash || &module_of(*entry) != &m) return nullptr;
  return entry;
}

namespace {

// The entry that `key` and `hash` name in the loaded module m, checked.
const registry_entry& entry_at(const module_record& m, std::uint64_t key, std::uint64_t hash,
                               const char* signature) {
  const registry_entry* entry = find_entry_at(m, key, hash);
  if (entry == nullptr) {
    const registry_entry* other = find_entry(m.base + key);
    throw unknown_key_error(key, m.path,
                            other == nullptr ? std::string()
                                             : "the key belongs to " + demangle(other->type_name) +
                                                   ", which is not the type the bytes were made from");
  }
  if (signature != nullptr && std::strcmp(entry->signature, signature) != 0)
    throw type_mismatch_error(demangle(signature), demangle(entry->signature));
  return *entry;
}

// A shared record after its tag: the first listed module that is loaded
// makes it; else the first that can be loaded. When none can, throws what
// loading the first one threw.
const registry_entry& read_shared_entry(input_archive& ar, const char* signature) {
  const std::uint8_t count = read_shared_count(ar);
  std::pair<std::size_t, std::uint64_t> listed[wire::max_shared_modules];
  for (std::uint8_t i = 0; i < count; ++i) {
    listed[i].first = read_module_name(ar);
    ar(listed[i].second);
  }
  std::uint64_t hash;
  ar(hash);
  auto& named = archive_access::modules(ar);
  for (std::uint8_t i = 0; i < count; ++i) {
    named_module& m = named[listed[i].first];
    if (m.record == nullptr) m.record = find_loaded_module(m.build_id);
    if (m.record != nullptr) return entry_at(*m.record, listed[i].second, hash, signature);
  }
  std::exception_ptr first_failure;
  for (std::uint8_t i = 0; i < count; ++i) {
    const module_record* m = nullptr;
    try {
      m = &resolve_named(ar, listed[i].first);
    } catch (const error&) {
      if (!first_failure) first_failure = std::current_exception();
      continue;
    }
    return entry_at(*m, listed[i].second, hash, signature);
  }
  std::rethrow_exception(first_failure);
}

}  // namespace

const registry_entry& read_entry(input_archive& ar, wire::function_tag tag,
                                 const char* signature) {
  if (tag == wire::function_tag::named) return read_named_entry(ar, signature);
  if (tag == wire::function_tag::shared) return read_shared_entry(ar, signature);
  const module_record& m = read_module_ref(ar);
  std::uint64_t key, hash;
  ar(key, hash);
  return entry_at(m, key, hash, signature);
}

wire::function_tag read_function_tag(input_archive& ar) {
  const std::size_t at = ar.offset();
  std::uint8_t tag;
  ar(tag);
  if (tag > static_cast<std::uint8_t>(wire::function_tag::shared))
    throw format_error(at, "unknown function tag " + std::to_string(tag) +
                               " (expected 0 empty, 1 keyed, 2 named, 3 pointer or 4 shared)");
  return static_cast<wire::function_tag>(tag);
}

void write_code_address(output_archive& ar, const void* code, const char* function_type) {
  const module_record& m = module_containing(code);
  const std::uint64_t offset = reinterpret_cast<std::uintptr_t>(code) - m.base;
  std::string problem = check_function(m, offset, function_type);
  if (!problem.empty())
    throw not_shippable_error("ferry: cannot ship a pointer to code in '" + m.path +
                              "': " + problem);
  verified().add_shipped(m.base + offset, function_type);
  write_module_ref(ar, m);
  ar(offset);
}

const void* read_code_address(input_archive& ar, const char* function_type) {
  const module_record& m = read_module_ref(ar);
  std::uint64_t offset;
  ar(offset);
  std::string problem = check_function(m, offset, function_type);
  if (!problem.empty()) throw unknown_key_error(offset, m.path, problem);
  // A symbol shows a function's parameters but neither its return type nor
  // whether it is a member: bytes could have a function of another type
  // called. Whoever vouches for the bytes, the program's allowed set, or
  // this process having shipped the same function says it is the one meant.
  const std::uintptr_t address = m.base + offset;
  if (!archive_access::vouched(ar) && !verified().shipped(address, function_type) && !in_allowed_set(m))
    throw module_not_allowed_error(
        m.path,
        "not allowed: a function pointer into module '" + m.path + "' (offset " + std::to_string(offset) +
            "), from bytes nobody vouched for; such a pointer is run only from a module in the allowed set "
            "(ferry::allow_module) or when this process shipped the same function itself, as a symbol does "
            "not show a function's return type. Allow the module, sign the bytes with a key given to "
            "ferry::trust_signed_code, or wrap the call in a capture-less lambda");
  return reinterpret_cast<const void*>(address);
}

void vouch_for_modules(input_archive& ar) { archive_access::vouched(ar) = true; }

void list_modules_at_end(output_archive& ar) { archive_access::listed_at_end(ar) = true; }

void write_module_directory(output_archive& ar) {
  const std::size_t start = archive_access::out(ar).size();
  const auto& named = archive_access::modules(ar);
  for (const module_record* m : named) {
    write_bytes(ar, m->path);
    write_bytes(ar, m->build_id);
  }
  const auto count = static_cast<std::uint32_t>(named.size());
  const auto size = static_cast<std::uint32_t>(archive_access::out(ar).size() - start);
  ar(count, size);
}

void read_module_directory(input_archive& ar) {
  const std::size_t footer_at = ar.offset() + ar.remaining() - wire::directory_footer_size;
  if (ar.remaining() < wire::directory_footer_size)
    throw format_error(ar.offset(), "the payload of " + std::to_string(ar.remaining()) +
                                        " bytes is too short for the module directory's " +
                                        std::to_string(wire::directory_footer_size) +
                                        "-byte footer");
  const char*& end = archive_access::end(ar);
  std::uint32_t count, size;
  std::memcpy(&count, end - wire::directory_footer_size, sizeof count);
  std::memcpy(&size, end - wire::directory_footer_size + sizeof count, sizeof size);
  if (size > ar.remaining() - wire::directory_footer_size)
    throw format_error(footer_at + 4, "the module directory's size " + std::to_string(size) +
                                          " is larger than the " +
                                          std::to_string(ar.remaining() - wire::directory_footer_size) +
                                          " bytes before it");
  if (count > wire::max_modules_per_payload)
    throw format_error(footer_at, "the module directory lists " + std::to_string(count) +
                                      " modules; at most " +
                                      std::to_string(wire::max_modules_per_payload) + " are accepted");
  const char* directory = end - wire::directory_footer_size - size;
  input_archive entries(std::string_view(directory, size),
                        archive_access::base_offset(ar) +
                            static_cast<std::size_t>(directory - archive_access::begin(ar)));
  auto& named = archive_access::modules(ar);
  named.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    auto [path, build_id] = read_new_module(entries);
    named.push_back({path, build_id, nullptr, false});
  }
  if (entries.remaining() != 0)
    throw format_error(entries.offset(), std::to_string(entries.remaining()) +
                                             " bytes in the module directory after its " +
                                             std::to_string(count) + " modules");
  end = directory;
  archive_access::listed_at_end(ar) = true;
}

void finish_payload(input_archive& ar) {
  if (ar.remaining() != 0) throw_trailing_bytes(ar.offset(), ar.remaining());
  for (const named_module& m : archive_access::modules(ar))
    if (!m.referenced)
      throw format_error(ar.offset(), "the module directory lists '" + std::string(m.path) +
                                          "', which nothing in the payload refers to");
}

depth_guard::depth_guard(input_archive& ar) : depth_(archive_access::depth(ar)) {
  if (depth_ >= wire::max_function_depth)
    throw format_error(ar.offset(), "functions nested deeper than " +
                                        std::to_string(wire::max_function_depth));
  ++depth_;
}

depth_guard::depth_guard(output_archive& ar) : depth_(archive_access::depth(ar)) {
  if (depth_ >= wire::max_function_depth)
    throw not_shippable_error("ferry: functions nested deeper than " +
                              std::to_string(wire::max_function_depth) +
                              " (ferry::wire::max_function_depth) cannot be shipped: no receiver "
                              "would load them. Flatten the nesting (a loop over a vector of "
                              "functions, say)");
  ++depth_;
}

depth_guard::~depth_guard() { --depth_; }

}  // namespace ferry::detail
