// Copyright ferry authors.
//
// The only place that loads code: through Boost.DLL, after the policy and the
// build-id have been checked by the caller (module.cc).
#include <boost/dll/shared_library.hpp>

#include <deque>
#include <string>
#include <string_view>

#include "serialize/code/library_loader.h"
#include "internal/mutex.h"
#include <serialize/error.h>

namespace ferry::detail {
namespace {

// Boost.DLL wraps dlerror()'s text as "...load() failed (dlerror system
// message: TEXT): <an unrelated errno>"; the user needs TEXT alone, which
// names the file the loader missed (a dependency of the module, often).
std::string loader_message(const std::string& what) {
  static constexpr std::string_view open = "(dlerror system message: ";
  const auto begin = what.find(open);
  const auto end = what.rfind("): ");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return what;
  return "the dynamic loader failed: " + what.substr(begin + open.size(), end - begin - open.size());
}

}  // namespace

void load_library(const std::string& canonical_path) {
  // Libraries stay loaded: closures made from them may outlive any scope.
  struct libraries {
    mutex mu;
    std::deque<boost::dll::shared_library> loaded ABSL_GUARDED_BY(mu);
  };
  static auto* held = new libraries;
  try {
    boost::dll::shared_library lib(boost::dll::fs::path(canonical_path),
                                   boost::dll::load_mode::rtld_now);
    mutex_lock lock(held->mu);
    held->loaded.push_back(std::move(lib));
  } catch (const std::system_error& e) {
    throw module_load_error(canonical_path, loader_message(e.what()));
  }
}

}  // namespace ferry::detail
