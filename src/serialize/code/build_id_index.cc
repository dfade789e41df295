// Copyright ferry authors.
#include "serialize/code/build_id_index.h"

#include <sys/stat.h>

#include <system_error>
#include <unordered_map>

#include "internal/mutex.h"
#include "serialize/code/elf_file.h"
#include "serialize/code/module.h"
#include "serialize/code/module_policy_internal.h"

namespace ferry::detail {
namespace {

namespace fs = std::filesystem;

// The canonical file at `candidate` if it is a regular file inside `root`.
std::string inside(const fs::path& candidate, const fs::path& root) {
  std::error_code ec;
  const fs::path real = fs::canonical(candidate, ec);
  if (ec || !path_within(real, root) || !fs::is_regular_file(real, ec)) return {};
  return real.string();
}

std::string build_id_of(const std::string& path) {
  try {
    return elf::inspect(path).build_id;
  } catch (...) {
    return {};  // not an ELF file, unreadable: not a module
  }
}

struct directory_index {
  struct timespec mtime {};
  bool built = false;
  std::unordered_map<std::string, std::string> by_build_id;  // raw id -> canonical path
};

class index_table {
 public:
  static index_table& instance() {
    static auto* t = new index_table;  // never destroyed: loads may run during exit
    return *t;
  }

  std::string find(const fs::path& dir, std::string_view build_id) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return {};
    mutex_lock lock(mu_);
    directory_index& index = indexes_[dir.string()];
    if (!index.built || index.mtime.tv_sec != st.st_mtim.tv_sec ||
        index.mtime.tv_nsec != st.st_mtim.tv_nsec) {
      rebuild(dir, index);
      index.mtime = st.st_mtim;
    }
    auto it = index.by_build_id.find(std::string(build_id));
    return it == index.by_build_id.end() ? std::string() : it->second;
  }

  void hold_for_fork(fork_phase phase) { apply_fork_phase(mu_, phase); }

 private:
  static void rebuild(const fs::path& dir, directory_index& index) {
    index.by_build_id.clear();
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
      const std::string file = inside(entry.path(), dir);
      if (file.empty()) continue;
      if (std::string id = build_id_of(file); !id.empty()) index.by_build_id.emplace(std::move(id), file);
    }
    index.built = true;
  }

  mutex mu_;
  std::unordered_map<std::string, directory_index> indexes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::string find_by_build_id(const std::vector<fs::path>& directories, std::string_view build_id) {
  if (build_id.empty()) return {};
  const std::string hex = to_hex(build_id);
  for (const fs::path& dir : directories) {
    const std::string debuginfod = inside(dir / ".build-id" / hex.substr(0, 2) / hex.substr(2), dir);
    if (!debuginfod.empty() && build_id_of(debuginfod) == build_id) return debuginfod;
    std::string indexed = index_table::instance().find(dir, build_id);
    // The file may have changed since it was indexed (within one mtime tick).
    if (!indexed.empty() && build_id_of(indexed) == build_id) return indexed;
  }
  return {};
}

void hold_build_id_index_for_fork(fork_phase phase) { index_table::instance().hold_for_fork(phase); }

}  // namespace ferry::detail
