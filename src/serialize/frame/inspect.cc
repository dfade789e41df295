// Copyright ferry authors.
#include <serialize/inspect.h>

#include "serialize/frame/archive_access.h"
#include "serialize/code/demangle.h"
#include "serialize/frame/frame_check.h"
#include "serialize/code/identity.h"
#include "serialize/code/module.h"
#include "serialize/code/module_policy_internal.h"
#include "serialize/code/registry.h"
#include <serialize/dumps.h>
#include <serialize/error.h>
#include <serialize/wire_format.h>

namespace ferry {
namespace {

// The payload of a plain or signed frame, its signature unchecked.
std::string_view payload_of(std::string_view bytes, bool& is_signed) {
  is_signed = bytes.substr(0, wire::signed_magic.size()) == wire::signed_magic;
  if (!is_signed) return detail::open_frame(bytes);
  if (bytes.size() < wire::header_size + wire::signature_size)
    throw format_error(bytes.size(), "a signed frame has a header and a 32-byte signature");
  return detail::open_frame_with(bytes.substr(0, bytes.size() - wire::signature_size),
                                 wire::signed_magic);
}

const char* kind_name(wire::function_tag tag) {
  switch (tag) {
    case wire::function_tag::empty: return "empty";
    case wire::function_tag::keyed: return "keyed";
    case wire::function_tag::named: return "named";
    case wire::function_tag::pointer: return "pointer";
    case wire::function_tag::shared: return "shared";
  }
  return "unknown";
}

// A named function's module: any loaded module registering the name, else
// the policy's candidates for the recorded path (any build will do).
void probe_named(const std::string& stable_name, inspection::module& m, inspection& what) {
  const auto entries = detail::find_named(stable_name);
  if (!entries.empty()) {
    m.status = inspection::module_status::loaded;
    m.file = detail::module_of(*entries.front()).path;
    m.refusal.clear();
    what.signature = detail::demangle(entries.front()->signature);
    what.type_name = detail::demangle(entries.front()->type_name);
    return;
  }
  if (m.status != inspection::module_status::refused) return;  // the recorded build will do
  const auto candidates = detail::allowed_candidates(m.path);
  if (candidates.empty()) return;
  m.status = inspection::module_status::loadable;
  m.file = candidates.front();
  m.refusal.clear();
}

// The module as probe_module sees it; `record`: the loaded one, if it is.
inspection::module probed(const detail::named_module& named, const detail::module_record*& record) {
  inspection::module m;
  m.path = named.path;
  m.build_id = detail::to_hex(named.build_id);
  const detail::module_probe probe = detail::probe_module(named.path, named.build_id);
  m.file = probe.file;
  m.refusal = probe.reason;
  record = probe.record;
  switch (probe.outcome) {
    case detail::module_probe::verdict::loaded: m.status = inspection::module_status::loaded; break;
    case detail::module_probe::verdict::loadable: m.status = inspection::module_status::loadable; break;
    case detail::module_probe::verdict::refused: m.status = inspection::module_status::refused; break;
  }
  return m;
}

}  // namespace

inspection inspect(std::string_view bytes) {
  inspection what;
  const std::string_view payload = payload_of(bytes, what.is_signed);
  input_archive ar(payload, wire::header_size);
  detail::read_module_directory(ar);
  const detail::recorded_identity id = detail::peek_identity(ar);
  what.kind = kind_name(id.tag);
  what.stable_name = id.stable_name;
  if (id.tag == wire::function_tag::pointer) what.signature = detail::demangle(id.signature.c_str());
  const auto& directory = detail::archive_access::modules(ar);
  for (std::size_t i = 0; i < directory.size(); ++i) {
    const detail::module_record* record = nullptr;
    inspection::module m = probed(directory[i], record);
    for (const auto& [index, key] : id.code) {
      if (index != i) continue;
      m.holds_function = true;
      m.key = key;
    }
    if (m.holds_function && id.tag == wire::function_tag::named) probe_named(id.stable_name, m, what);
    const bool keyed = id.tag == wire::function_tag::keyed || id.tag == wire::function_tag::shared;
    if (m.holds_function && keyed && m.status == inspection::module_status::loaded) {
      const detail::registry_entry* e =
          record != nullptr ? detail::find_entry_at(*record, m.key, id.type_hash) : nullptr;
      if (e == nullptr) {
        m.status = inspection::module_status::refused;
        m.refusal = unknown_key_error(m.key, std::string(directory[i].path), "").what();
      } else if (what.type_name.empty()) {
        what.signature = detail::demangle(e->signature);
        what.type_name = detail::demangle(e->type_name);
      }
    }
    what.modules.push_back(std::move(m));
  }
  return what;
}

std::string to_string(const inspection& what) {
  std::string out = "function: " + what.kind + (what.is_signed ? " (signed; signature not checked)" : "") + "\n";
  if (what.kind == "empty") return out;
  if (what.kind == "shared") out += "any one module holding the code will do\n";
  if (!what.stable_name.empty()) out += "stable name: " + what.stable_name + "\n";
  if (!what.signature.empty()) out += "signature: " + what.signature + "\n";
  if (!what.type_name.empty()) out += "type: " + what.type_name + "\n";
  for (const inspection::module& m : what.modules) {
    out += "module: " + m.path + "\n";
    if (!m.build_id.empty()) out += "  build-id: " + m.build_id + "\n";
    if (!m.holds_function) out += "  holds: code the function's state names\n";
    else if (what.kind == "pointer") out += "  holds: the function, at offset " + std::to_string(m.key) + "\n";
    else if (what.kind == "named") out += "  holds: the function\n";
    else out += "  holds: the function's type, key " + std::to_string(m.key) + "\n";
    switch (m.status) {
      case inspection::module_status::loaded: out += "  status: loaded, from " + m.file + "\n"; break;
      case inspection::module_status::loadable: out += "  status: loadable, from " + m.file + "\n"; break;
      case inspection::module_status::refused: out += "  status: refused: " + m.refusal + "\n"; break;
    }
  }
  return out;
}

}  // namespace ferry
