// Copyright ferry authors.
#include <serialize/module_policy.h>

#include <algorithm>
#include <system_error>

#include "internal/mutex.h"
#include "serialize/code/fork_guard.h"
#include "serialize/code/module_policy_internal.h"
#include <serialize/error.h>

namespace ferry {
namespace {

namespace fs = std::filesystem;

struct policy {
  detail::mutex mu;
  std::vector<fs::path> allowed ABSL_GUARDED_BY(mu);  // canonical
  std::vector<std::string> trusted_keys ABSL_GUARDED_BY(mu);
  std::vector<fs::path> search ABSL_GUARDED_BY(mu);  // canonical, also in `allowed`
};

policy& the_policy() {
  static auto* p = new policy;  // never destroyed: loads may run during exit
  return *p;
}

}  // namespace

void allow_module(const fs::path& path_or_directory) {
  std::error_code ec;
  fs::path canonical = fs::canonical(path_or_directory, ec);
  if (ec)
    throw error("ferry::allow_module: cannot use '" + path_or_directory.string() +
                "': " + ec.message());
  policy& p = the_policy();
  detail::mutex_lock lock(p.mu);
  if (std::find(p.allowed.begin(), p.allowed.end(), canonical) == p.allowed.end())
    p.allowed.push_back(std::move(canonical));
}

void add_module_search_path(const fs::path& directory) {
  std::error_code ec;
  if (!fs::is_directory(directory, ec))
    throw error("ferry::add_module_search_path: '" + directory.string() + "' is not a directory");
  allow_module(directory);
  const fs::path canonical = fs::canonical(directory, ec);
  policy& p = the_policy();
  detail::mutex_lock lock(p.mu);
  if (std::find(p.search.begin(), p.search.end(), canonical) == p.search.end())
    p.search.push_back(canonical);
}

std::vector<fs::path> module_search_paths() {
  policy& p = the_policy();
  detail::mutex_lock lock(p.mu);
  return p.search;
}

std::vector<fs::path> allowed_modules() {
  policy& p = the_policy();
  detail::mutex_lock lock(p.mu);
  return p.allowed;
}

void trust_signed_code(const signing_key& key) {
  policy& p = the_policy();
  detail::mutex_lock lock(p.mu);
  const std::string bytes(key.bytes());
  if (std::find(p.trusted_keys.begin(), p.trusted_keys.end(), bytes) == p.trusted_keys.end())
    p.trusted_keys.push_back(bytes);
}

void clear_allowed_modules() {
  policy& p = the_policy();
  detail::mutex_lock lock(p.mu);
  p.allowed.clear();
  p.trusted_keys.clear();
  p.search.clear();
}

namespace detail {

void hold_policy_for_fork(fork_phase phase) { apply_fork_phase(the_policy().mu, phase); }

bool path_within(const fs::path& p, const fs::path& root) {
  auto [pi, ri] = std::mismatch(p.begin(), p.end(), root.begin(), root.end());
  return ri == root.end();
}

bool trusts_code_signed_by(const signing_key& key) {
  policy& p = the_policy();
  detail::mutex_lock lock(p.mu);
  return std::find(p.trusted_keys.begin(), p.trusted_keys.end(), key.bytes()) != p.trusted_keys.end();
}

void forget_module_search_path(const fs::path& directory) {
  std::error_code ec;
  fs::path canonical = fs::canonical(directory, ec);
  if (ec) canonical = directory;
  policy& p = the_policy();
  detail::mutex_lock lock(p.mu);
  std::erase(p.search, canonical);
  std::erase(p.allowed, canonical);
}

std::vector<std::string> allowed_candidates(const std::string& path) {
  const std::vector<fs::path> allowed = allowed_modules();
  std::vector<std::string> out;
  auto add = [&out](const fs::path& canonical) {
    std::error_code ec;
    if (!fs::is_regular_file(canonical, ec)) return;
    if (std::find(out.begin(), out.end(), canonical.string()) == out.end())
      out.push_back(canonical.string());
  };
  std::error_code ec;
  const fs::path recorded = fs::canonical(path, ec);  // resolves "..", symlinks
  if (!ec) {
    for (const fs::path& root : allowed)
      if (detail::path_within(recorded, root)) add(recorded);
  }
  const fs::path name = fs::path(path).filename();
  if (!name.empty() && name != "." && name != "..") {
    for (const fs::path& root : allowed) {
      if (!fs::is_directory(root, ec)) continue;
      const fs::path there = fs::canonical(root / name, ec);
      if (!ec && detail::path_within(there, root)) add(there);
    }
  }
  return out;
}

}  // namespace detail
}  // namespace ferry
