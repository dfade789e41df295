// Copyright ferry authors.
//
// src/serialize/code/loaded_modules_linux.cc: this process's loaded
// objects as the dynamic loader lists them, the executable first and named
// by its file, and a generation that moves when one is loaded.
#include "serialize/code/loaded_modules_linux.h"

#include <dlfcn.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "serialize/code/elf_file.h"

namespace {

namespace fs = std::filesystem;
using ferry::detail::loaded_object;
using ferry::detail::object_view;

int in_this_program(int x) { return x + 1; }

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

std::vector<loaded_object> all_objects() {
  std::vector<loaded_object> out;
  ferry::detail::for_each_loaded_object([&](const object_view& v) {
    out.push_back(v.describe());
    return false;
  });
  return out;
}

TEST(LoadedModulesLinux, TheFirstObjectIsTheExecutableNamedByItsFile) {
  const std::vector<loaded_object> objects = all_objects();
  ASSERT_GE(objects.size(), 2u);
  EXPECT_TRUE(objects[0].main_program);
  EXPECT_EQ(objects[0].path, fs::read_symlink("/proc/self/exe").string());
  EXPECT_EQ(ferry::detail::executable_path(), objects[0].path);
  for (std::size_t i = 1; i < objects.size(); ++i) EXPECT_FALSE(objects[i].main_program) << objects[i].path;
}

TEST(LoadedModulesLinux, TheExecutablesBuildIdInMemoryIsTheOneInItsFile) {
  const std::vector<loaded_object> objects = all_objects();
  ASSERT_FALSE(objects.empty());
  EXPECT_FALSE(objects[0].build_id.empty());
  EXPECT_EQ(objects[0].build_id, ferry::detail::elf::inspect(objects[0].path).build_id);
}

TEST(LoadedModulesLinux, AnAddressIsContainedByTheObjectThatHoldsItsCodeAlone) {
  std::vector<std::string> holding_own, holding_libc;
  ferry::detail::for_each_loaded_object([&](const object_view& v) {
    if (v.contains(address(reinterpret_cast<const void*>(&in_this_program)))) holding_own.push_back(v.describe().path);
    if (v.contains(address(reinterpret_cast<const void*>(&::getpid)))) holding_libc.push_back(v.describe().path);
    return false;
  });
  EXPECT_EQ(holding_own, std::vector<std::string>{ferry::detail::executable_path()});
  ASSERT_EQ(holding_libc.size(), 1u);
  EXPECT_NE(fs::path(holding_libc[0]).filename().string().find("libc"), std::string::npos) << holding_libc[0];
}

TEST(LoadedModulesLinux, TheWalkStopsAtTheFirstObjectThatAnswersTrue) {
  int asked = 0;
  EXPECT_TRUE(ferry::detail::for_each_loaded_object([&](const object_view&) { return ++asked == 2; }));
  EXPECT_EQ(asked, 2);
  asked = 0;
  EXPECT_FALSE(ferry::detail::for_each_loaded_object([&](const object_view&) {
    ++asked;
    return false;
  }));
  EXPECT_EQ(static_cast<std::size_t>(asked), all_objects().size());
}

TEST(LoadedModulesLinux, LoadingALibraryMovesTheGenerationAndListsItWithoutABuildIdItLacks) {
  const std::uint64_t before = ferry::detail::load_generation();
  EXPECT_EQ(ferry::detail::load_generation(), before) << "moved with nothing loaded";
  void* handle = ::dlopen(FERRY_TEST_PLUGIN_NO_BUILD_ID, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << ::dlerror();
  EXPECT_NE(ferry::detail::load_generation(), before);
  bool listed = false;
  for (const loaded_object& o : all_objects()) {
    if (fs::path(o.path).filename() != fs::path(FERRY_TEST_PLUGIN_NO_BUILD_ID).filename()) continue;
    listed = true;
    EXPECT_TRUE(o.build_id.empty());
    EXPECT_NE(o.base, 0u);
  }
  EXPECT_TRUE(listed);
}

}  // namespace
