// Copyright ferry authors.
#include "serialize/code/module.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <optional>
#include <system_error>

#include <sys/stat.h>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/string_view.h>

#include "internal/mutex.h"
#include "serialize/code/build_id_index.h"
#include "serialize/code/elf_file.h"
#include "serialize/code/fork_guard.h"
#include "serialize/code/library_loader.h"
#include "serialize/code/loaded_modules_linux.h"
#include "serialize/code/module_policy_internal.h"
#include <serialize/module_policy.h>
#include <serialize/error.h>

namespace ferry::detail {
namespace {

class module_table {
 public:
  static module_table& instance() {
    static auto* table = new module_table;  // never destroyed: used by exit-time code
    return *table;
  }

  const module_record& intern(loaded_object obj) {
    mutex_lock lock(mu_);
    for (const module_record& r : records_)
      if (r.base == obj.base && r.build_id == obj.build_id) return r;
    module_record& r = records_.emplace_back();
    r.path = std::move(obj.path);
    r.build_id = std::move(obj.build_id);
    r.base = obj.base;
    r.main_program = obj.main_program;
    return r;
  }

  // Answers from a cache while no object was loaded or unloaded since it was
  // filled; dl_iterate_phdr's counters tell, at the cost of one callback.
  const module_record* find_loaded(std::string_view build_id) {
    const std::uint64_t gen = load_generation();
    {
      mutex_lock lock(mu_);
      if (gen == cache_generation_) {
        auto it = by_build_id_.find(absl::string_view(build_id.data(), build_id.size()));
        if (it != by_build_id_.end()) return it->second;
      }
    }
    std::optional<loaded_object> found;
    for_each_loaded_object([&](const object_view& object) {
      if (object.build_id() != build_id) return false;
      found = object.describe();
      return true;
    });
    if (!found) return nullptr;
    const module_record& r = intern(std::move(*found));
    mutex_lock lock(mu_);
    if (gen != cache_generation_) {
      by_build_id_.clear();
      cache_generation_ = gen;
    }
    by_build_id_[r.build_id] = &r;
    return &r;
  }

  // Serializes loads so that two threads do not load one module twice. It
  // guards no member: what it orders is the dynamic loader's work.
  reentrant_mutex load_mu;

  void hold_for_fork(fork_phase phase) {
    if (phase == fork_phase::acquire) {
      apply_fork_phase(load_mu, phase);
      apply_fork_phase(mu_, phase);
    } else {
      apply_fork_phase(mu_, phase);
      apply_fork_phase(load_mu, phase);
    }
  }

 private:

  mutex mu_;
  std::deque<module_record> records_ ABSL_GUARDED_BY(mu_);  // stable addresses
  std::uint64_t cache_generation_ ABSL_GUARDED_BY(mu_) = ~std::uint64_t{0};
  // Looked up by string_view, without making a string.
  absl::flat_hash_map<std::string, const module_record*> by_build_id_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void hold_modules_for_fork(fork_phase phase) { module_table::instance().hold_for_fork(phase); }

const std::unordered_map<std::uint64_t, std::string>& module_record::function_symbols() const {
  std::call_once(symbols_once_, [this] {
    // Only trust the file's symbols if it is still the build that is loaded.
    if (elf::inspect(path).build_id != build_id)
      throw module_load_error(path, "the file on disk is no longer the build that is loaded");
    symbols_ = elf::function_symbols(path);
  });
  return symbols_;
}

const module_record& module_containing(const void* address) {
  const auto addr = reinterpret_cast<std::uintptr_t>(address);
  std::optional<loaded_object> found;
  for_each_loaded_object([&](const object_view& object) {
    if (!object.contains(addr)) return false;
    found = object.describe();
    return true;
  });
  if (!found)
    throw not_shippable_error("ferry: code at " + std::to_string(addr) +
                              " is not inside any loaded module, so it cannot be named in bytes");
  if (found->build_id.empty())
    throw not_shippable_error("ferry: module '" + found->path +
                              "' has no GNU build-id; link it with -Wl,--build-id");
  return module_table::instance().intern(std::move(*found));
}

namespace {

// The files that may be loaded for a module recorded at `path`, best first.
std::vector<std::string> candidates_for(const std::string& path, bool vouched) {
  std::vector<std::string> candidates = allowed_candidates(path);
  std::error_code ec;
  const std::filesystem::path recorded = std::filesystem::canonical(path, ec);
  if (vouched && !ec && std::filesystem::is_regular_file(recorded, ec) &&
      std::find(candidates.begin(), candidates.end(), recorded.string()) == candidates.end())
    candidates.insert(candidates.begin(), recorded.string());
  return candidates;
}

// The build-id of the object this process has loaded from the file at
// `path`, if any: that file is then this process's, as another build than
// the bytes name (a program or library rebuilt since they were written),
// and loading it again would only give back what is loaded.
// Files are compared by device and inode: one stat() per loaded object.
std::optional<std::string> loaded_build_at(const std::string& path) {
  struct stat wanted {};
  if (::stat(path.c_str(), &wanted) != 0) return std::nullopt;
  std::optional<std::string> build_id;
  for_each_loaded_object([&](const object_view& object) {
    loaded_object o = object.describe();
    struct stat st {};
    if (o.path.empty() || ::stat(o.path.c_str(), &st) != 0 || st.st_dev != wanted.st_dev ||
        st.st_ino != wanted.st_ino)
      return false;
    build_id = std::move(o.build_id);
    return true;
  });
  return build_id;
}

[[noreturn]] void throw_not_loadable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) throw module_not_allowed_error(path);
  throw module_not_found_error(path);
}

std::vector<std::string> candidates_or_throw(const std::string& path) {
  std::vector<std::string> candidates = candidates_for(path, false);
  if (candidates.empty()) throw_not_loadable(path);
  return candidates;
}

elf::file_facts inspect_library(const std::string& candidate) {
  elf::file_facts facts = elf::inspect(candidate);
  if (facts.is_program)
    throw module_load_error(candidate,
                            "it is the executable of another program; a program cannot be "
                            "loaded as a library, so only a process running it can run this "
                            "code");
  return facts;
}

}  // namespace

void load_module_by_path(const std::string& path) {
  module_table& table = module_table::instance();
  std::lock_guard load_lock(table.load_mu);
  if (loaded_build_at(path)) return;  // already loaded from that file: nothing more can register the name
  const std::string candidate = candidates_or_throw(path).front();
  const elf::file_facts facts = inspect_library(candidate);
  if (!facts.build_id.empty() && table.find_loaded(facts.build_id) != nullptr) return;
  load_library(candidate);
}

namespace {

// The file that loading the module would open, chosen by the policy and
// checked by its build-id; throws the module error that refuses it.
std::string choose_file(const std::string& path, std::string_view build_id, bool vouched) {
  std::string found_other;  // build-id of a candidate that is another build
  std::string examined;     // that candidate
  const std::vector<std::string> candidates = candidates_for(path, vouched);
  for (const std::string& candidate : candidates) {
    if (const auto loaded = loaded_build_at(candidate)) {
      found_other = to_hex(*loaded);
      examined = candidate;
      continue;
    }
    const elf::file_facts facts = inspect_library(candidate);
    if (facts.build_id == build_id) return candidate;
    found_other = to_hex(facts.build_id);
    examined = candidate;
  }
  // The recorded path is missing or another build: the same build elsewhere.
  const std::string found = find_by_build_id(module_search_paths(), build_id);
  if (!found.empty()) {
    inspect_library(found);
    return found;
  }
  if (candidates.empty()) {
    // Not allowed, but loaded here as another build: that is what to say,
    // since allowing it could not help.
    if (const auto loaded = loaded_build_at(path))
      throw build_id_mismatch_error(path, to_hex(build_id), to_hex(*loaded), path);
    throw_not_loadable(path);
  }
  throw build_id_mismatch_error(path, to_hex(build_id), found_other, examined);
}

}  // namespace

const module_record* find_loaded_module(std::string_view build_id) {
  return module_table::instance().find_loaded(build_id);
}

const module_record& resolve_module(std::string_view path, std::string_view build_id,
                                    bool vouched) {
  module_table& table = module_table::instance();
  if (const module_record* r = table.find_loaded(build_id)) return *r;

  std::lock_guard load_lock(table.load_mu);
  if (const module_record* r = table.find_loaded(build_id)) return *r;  // loaded meanwhile

  const std::string file = choose_file(std::string(path), build_id, vouched);
  load_library(file);
  if (const module_record* r = table.find_loaded(build_id)) return *r;
  throw module_load_error(file, "loaded, but no module with build-id " + to_hex(build_id) +
                                    " appeared");
}

module_probe probe_module(std::string_view path, std::string_view build_id) {
  if (const module_record* r = module_table::instance().find_loaded(build_id))
    return {module_probe::verdict::loaded, r, r->path, {}};
  try {
    return {module_probe::verdict::loadable, nullptr, choose_file(std::string(path), build_id, false), {}};
  } catch (const std::exception& e) {
    return {module_probe::verdict::refused, nullptr, {}, e.what()};
  }
}

std::string to_hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

}  // namespace ferry::detail
