// Copyright ferry authors.
//
// Finding a module's file by its GNU build-id in the search directories
// (src/serialize/code/build_id_index.cc): in a directory's own files and in
// its debuginfod layout, a new file once the directory changes, and never
// a file that resolves outside the directory.
#include "serialize/code/build_id_index.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "serialize/code/elf_file.h"

#include "../temp_dir.h"

namespace fs = std::filesystem;

namespace {

using ferry::detail::find_by_build_id;

std::string build_id_of(const char* path) { return ferry::detail::elf::inspect(path).build_id; }

std::string hex(const std::string& raw) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// dir, canonical, as the search path list holds it.
std::vector<fs::path> searched(const ferry_test::temp_dir& dir) { return {fs::canonical(dir.path())}; }

}  // namespace

TEST(BuildIdIndex, AModuleCopiedIntoADirectoryIsFoundThereByItsBuildId) {
  ferry_test::temp_dir dir;
  fs::copy_file(FERRY_TEST_PLUGIN, dir.path() / "renamed.so");
  EXPECT_EQ(find_by_build_id(searched(dir), build_id_of(FERRY_TEST_PLUGIN)),
            fs::canonical(dir.path() / "renamed.so").string());
  EXPECT_EQ(find_by_build_id(searched(dir), build_id_of(FERRY_TEST_PLUGIN_VARIANT)), "");
}

TEST(BuildIdIndex, AFileAddedLaterIsFoundOnceTheDirectoryChanged) {
  ferry_test::temp_dir dir;
  fs::copy_file(FERRY_TEST_PLUGIN, dir.path() / "first.so");
  ASSERT_EQ(find_by_build_id(searched(dir), build_id_of(FERRY_TEST_PLUGIN_VARIANT)), "");  // indexed now
  // The index is kept while the directory's modification time is the same,
  // which the kernel keeps to a clock tick (a few ms): add in a later one.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  fs::copy_file(FERRY_TEST_PLUGIN_VARIANT, dir.path() / "second.so");
  EXPECT_EQ(find_by_build_id(searched(dir), build_id_of(FERRY_TEST_PLUGIN_VARIANT)),
            fs::canonical(dir.path() / "second.so").string());
}

TEST(BuildIdIndex, TheDebuginfodLayoutIsLookedUpByPath) {
  ferry_test::temp_dir dir;
  const std::string id = hex(build_id_of(FERRY_TEST_PLUGIN));
  fs::create_directories(dir.path() / ".build-id" / id.substr(0, 2));
  fs::copy_file(FERRY_TEST_PLUGIN, dir.path() / ".build-id" / id.substr(0, 2) / id.substr(2));
  EXPECT_EQ(find_by_build_id(searched(dir), build_id_of(FERRY_TEST_PLUGIN)),
            fs::canonical(dir.path() / ".build-id" / id.substr(0, 2) / id.substr(2)).string());
}

TEST(BuildIdIndex, ASymlinkLeadingOutOfTheDirectoryIsNotFollowed) {
  ferry_test::temp_dir dir;
  fs::create_symlink(fs::canonical(FERRY_TEST_PLUGIN), dir.path() / "outside.so");
  EXPECT_EQ(find_by_build_id(searched(dir), build_id_of(FERRY_TEST_PLUGIN)), "");
}

TEST(BuildIdIndex, NoBuildIdFindsNothing) {
  ferry_test::temp_dir dir;
  fs::copy_file(FERRY_TEST_PLUGIN_NO_BUILD_ID, dir.path() / "anonymous.so");
  EXPECT_EQ(find_by_build_id(searched(dir), ""), "");
}

TEST(BuildIdIndex, TheFirstDirectoryHoldingTheModuleWins) {
  ferry_test::temp_dir empty, holder, later;
  fs::copy_file(FERRY_TEST_PLUGIN, holder.path() / "a.so");
  fs::copy_file(FERRY_TEST_PLUGIN, later.path() / "b.so");
  const std::vector<fs::path> dirs{fs::canonical(empty.path()), fs::canonical(holder.path()),
                                   fs::canonical(later.path())};
  EXPECT_EQ(find_by_build_id(dirs, build_id_of(FERRY_TEST_PLUGIN)), fs::canonical(holder.path() / "a.so").string());
}
