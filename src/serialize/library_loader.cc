// Copyright ferry authors.
//
// The only place that loads code: through Boost.DLL, after the policy and the
// build-id have been checked by the caller (module.cc).
#include <boost/dll/shared_library.hpp>

#include <deque>
#include <mutex>

#include "library_loader.h"
#include "serialize/error.h"

namespace ferry::detail {

void load_library(const std::string& canonical_path) {
  // Libraries stay loaded: closures made from them may outlive any scope.
  static auto* loaded = new std::deque<boost::dll::shared_library>;
  static auto* mu = new std::mutex;
  try {
    boost::dll::shared_library lib(boost::dll::fs::path(canonical_path),
                                   boost::dll::load_mode::rtld_now);
    std::lock_guard lock(*mu);
    loaded->push_back(std::move(lib));
  } catch (const std::system_error& e) {
    throw module_load_error(canonical_path, e.what());
  }
}

}  // namespace ferry::detail
