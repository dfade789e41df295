// Copyright ferry authors.
//
// src/serialize/code/library_loader.cc, the one place that loads code:
// what the dynamic loader refuses becomes a module_load_error carrying the
// loader's own reason, without Boost.DLL's wrapping around it.
#include "serialize/code/library_loader.h"

#include <dlfcn.h>

#include <gtest/gtest.h>

#include <string>

#include <serialize/error.h>

namespace {

// The error load_library throws for `path`; fails the test if it loads.
std::string refusal(const std::string& path) {
  try {
    ferry::detail::load_library(path);
  } catch (const ferry::module_load_error& e) {
    EXPECT_EQ(e.path(), path);
    return e.what();
  }
  ADD_FAILURE() << path << " was loaded";
  return {};
}

TEST(LibraryLoader, AFileThatIsNotALibraryIsRefusedWithTheLoadersReasonAlone) {
  const std::string what = refusal(FERRY_TEST_NOT_ELF);
  EXPECT_NE(what.find("the dynamic loader failed: "), std::string::npos) << what;
  EXPECT_NE(what.find("libnot_elf.so"), std::string::npos) << what;
  EXPECT_EQ(what.find("dlerror system message"), std::string::npos) << what;
}

TEST(LibraryLoader, AMissingFileIsAModuleLoadError) {
  const std::string what = refusal("/nonexistent/ferry/libmissing.so");
  EXPECT_NE(what.find("libmissing.so"), std::string::npos) << what;
}

TEST(LibraryLoader, ALoadedLibraryStaysLoadedAndLoadingItAgainIsHarmless) {
  // CTest runs each test in a process of its own; the whole program run at
  // once has loaded the plugin in an earlier test (a library stays).
  if (void* earlier = ::dlopen(FERRY_TEST_PLUGIN_NO_BUILD_ID, RTLD_NOW | RTLD_NOLOAD); earlier != nullptr) {
    ::dlclose(earlier);
    GTEST_SKIP() << "loaded already by an earlier test of this process; run this test alone";
  }
  ferry::detail::load_library(FERRY_TEST_PLUGIN_NO_BUILD_ID);
  ferry::detail::load_library(FERRY_TEST_PLUGIN_NO_BUILD_ID);
  void* handle = ::dlopen(FERRY_TEST_PLUGIN_NO_BUILD_ID, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(handle, nullptr) << "not loaded";
  if (handle != nullptr) ::dlclose(handle);  // the reference NOLOAD took
}

}  // namespace
