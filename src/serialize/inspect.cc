// Copyright ferry authors.
#include "serialize/inspect.h"

#include "demangle.h"
#include "frame_check.h"
#include "identity.h"
#include "module.h"
#include "module_policy_internal.h"
#include "registry.h"
#include "serialize/dumps.h"
#include "serialize/error.h"
#include "serialize/wire_format.h"

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
  }
  return "unknown";
}

}  // namespace

inspection inspect(std::string_view bytes) {
  inspection what;
  const std::string_view payload = payload_of(bytes, what.is_signed);
  input_archive ar(payload, wire::header_size);
  const detail::recorded_identity id = detail::peek_identity(ar);
  what.kind = kind_name(id.tag);
  if (id.tag == wire::function_tag::empty) return what;
  what.module_path = id.module_path;
  if (id.tag == wire::function_tag::named) {
    what.stable_name = id.stable_name;
    const auto entries = detail::find_named(id.stable_name);
    if (!entries.empty()) {
      what.status = inspection::module_status::loaded;
      what.file = detail::module_of(*entries.front()).path;
      what.signature = detail::demangle(entries.front()->signature);
      what.type_name = detail::demangle(entries.front()->type_name);
      return what;
    }
    const auto candidates = detail::allowed_candidates(id.module_path);
    if (candidates.empty()) {
      what.status = inspection::module_status::refused;
      what.refusal = module_not_allowed_error(id.module_path).what();
    } else {
      what.status = inspection::module_status::loadable;
      what.file = candidates.front();
    }
    return what;
  }
  what.build_id = detail::to_hex(id.build_id);
  what.key = id.key;
  if (id.tag == wire::function_tag::pointer) what.signature = detail::demangle(id.signature.c_str());
  const detail::module_probe probe = detail::probe_module(id.module_path, id.build_id);
  what.file = probe.file;
  what.refusal = probe.reason;
  switch (probe.outcome) {
    case detail::module_probe::verdict::loaded: what.status = inspection::module_status::loaded; break;
    case detail::module_probe::verdict::loadable: what.status = inspection::module_status::loadable; break;
    case detail::module_probe::verdict::refused: what.status = inspection::module_status::refused; break;
  }
  if (probe.record != nullptr && id.tag == wire::function_tag::keyed) {
    if (const detail::registry_entry* e = detail::find_recorded_entry(id, *probe.record)) {
      what.signature = detail::demangle(e->signature);
      what.type_name = detail::demangle(e->type_name);
    } else {
      what.status = inspection::module_status::refused;
      what.refusal = unknown_key_error(id.key, probe.record->path, "").what();
    }
  }
  return what;
}

std::string to_string(const inspection& what) {
  std::string out = "function: " + what.kind + (what.is_signed ? " (signed; signature not checked)" : "") + "\n";
  if (what.kind == "empty") return out;
  if (!what.stable_name.empty()) out += "stable name: " + what.stable_name + "\n";
  out += "module: " + what.module_path + "\n";
  if (!what.build_id.empty()) out += "build-id: " + what.build_id + "\n";
  if (what.kind == "keyed") out += "key: " + std::to_string(what.key) + "\n";
  if (what.kind == "pointer") out += "offset: " + std::to_string(what.key) + "\n";
  switch (what.status) {
    case inspection::module_status::loaded: out += "status: loaded, from " + what.file + "\n"; break;
    case inspection::module_status::loadable: out += "status: loadable, from " + what.file + "\n"; break;
    case inspection::module_status::refused: out += "status: refused: " + what.refusal + "\n"; break;
    case inspection::module_status::none: break;
  }
  if (!what.signature.empty()) out += "signature: " + what.signature + "\n";
  if (!what.type_name.empty()) out += "type: " + what.type_name + "\n";
  return out;
}

}  // namespace ferry
