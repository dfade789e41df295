// Copyright ferry authors.
//
// src/serialize/code/module_policy.cc: what this process allows loads to
// load, kept as canonical paths, and the files a recorded module path may
// then be loaded from. Files here are plain files: which of them is a
// module, and loading it, are module_test.cc's.
#include <serialize/module_policy.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <serialize/error.h>
#include "serialize/code/module_policy_internal.h"
#include "../temp_dir.h"

namespace {

namespace fs = std::filesystem;
using ferry::detail::allowed_candidates;

// Each test starts and ends with nothing allowed.
class ModulePolicy : public ::testing::Test {
 protected:
  ModulePolicy() { ferry::clear_allowed_modules(); }
  ~ModulePolicy() override { ferry::clear_allowed_modules(); }

  // An empty file at `relative` under the test's directory, its folders made.
  fs::path file(const fs::path& relative) {
    const fs::path p = dir.path() / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "";
    return fs::canonical(p);
  }

  ferry_test::temp_dir dir;
};

TEST_F(ModulePolicy, AnAllowanceIsKeptCanonicalAndOnce) {
  fs::create_directories(dir.path() / "plugins" / "sub");
  ferry::allow_module(dir.path() / "plugins" / "sub" / "..");
  ferry::allow_module(dir.path() / "plugins");
  fs::create_symlink(dir.path() / "plugins", dir.path() / "link");
  ferry::allow_module(dir.path() / "link");
  EXPECT_EQ(ferry::allowed_modules(), std::vector<fs::path>{fs::canonical(dir.path() / "plugins")});
}

TEST_F(ModulePolicy, AForgottenSearchDirectoryIsNeitherSearchedNorAllowedAndTheRestStays) {
  fs::create_directories(dir.path() / "shipped");
  fs::create_directories(dir.path() / "kept");
  ferry::add_module_search_path(dir.path() / "shipped");
  ferry::add_module_search_path(dir.path() / "kept");
  const fs::path plugin = file("plugin.so");
  ferry::allow_module(plugin);
  ferry::detail::forget_module_search_path(dir.path() / "kept" / ".." / "shipped");
  const fs::path kept = fs::canonical(dir.path() / "kept");
  EXPECT_EQ(ferry::module_search_paths(), std::vector<fs::path>{kept});
  EXPECT_EQ(ferry::allowed_modules(), (std::vector<fs::path>{kept, plugin}));
  // Once removed, and again: nothing is left to forget, and nothing throws.
  fs::remove(dir.path() / "kept");
  ferry::detail::forget_module_search_path(kept);
  ferry::detail::forget_module_search_path(kept);
  EXPECT_TRUE(ferry::module_search_paths().empty());
  EXPECT_EQ(ferry::allowed_modules(), std::vector<fs::path>{plugin});
}

TEST_F(ModulePolicy, AMissingPathIsRefusedByNameAndNothingIsAllowed) {
  const fs::path missing = dir.path() / "no-such-plugin.so";
  try {
    ferry::allow_module(missing);
    ADD_FAILURE() << "a missing path was allowed";
  } catch (const ferry::error& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(ferry::allowed_modules().empty());
}

TEST_F(ModulePolicy, ASearchDirectoryIsAlsoAllowedAndListedInTheOrderAdded) {
  fs::create_directories(dir.path() / "b");
  fs::create_directories(dir.path() / "a");
  ferry::add_module_search_path(dir.path() / "b");
  ferry::add_module_search_path(dir.path() / "a");
  ferry::add_module_search_path(dir.path() / "b");
  const std::vector<fs::path> expected{fs::canonical(dir.path() / "b"), fs::canonical(dir.path() / "a")};
  EXPECT_EQ(ferry::module_search_paths(), expected);
  EXPECT_EQ(ferry::allowed_modules(), expected);
}

TEST_F(ModulePolicy, ASearchPathThatIsNoDirectoryIsRefused) {
  const fs::path f = file("libone.so");
  EXPECT_THROW(ferry::add_module_search_path(f), ferry::error);
  EXPECT_THROW(ferry::add_module_search_path(dir.path() / "missing"), ferry::error);
  EXPECT_TRUE(ferry::module_search_paths().empty());
  EXPECT_TRUE(ferry::allowed_modules().empty());
}

TEST_F(ModulePolicy, OnlyATrustedKeyIsTrustedAndClearingForgetsEverything) {
  const ferry::signing_key trusted = ferry::signing_key::generate();
  const ferry::signing_key other = ferry::signing_key::generate();
  ferry::trust_signed_code(trusted);
  ferry::add_module_search_path(dir.path());
  EXPECT_TRUE(ferry::detail::trusts_code_signed_by(trusted));
  EXPECT_FALSE(ferry::detail::trusts_code_signed_by(other));
  ferry::clear_allowed_modules();
  EXPECT_FALSE(ferry::detail::trusts_code_signed_by(trusted));
  EXPECT_TRUE(ferry::allowed_modules().empty());
  EXPECT_TRUE(ferry::module_search_paths().empty());
}

TEST_F(ModulePolicy, NothingAllowedGivesNoCandidate) {
  EXPECT_TRUE(allowed_candidates(file("lib/libone.so").string()).empty());
}

TEST_F(ModulePolicy, ARecordedPathInAnAllowedDirectoryIsItsOwnCandidate) {
  const fs::path recorded = file("plugins/libone.so");
  ferry::allow_module(dir.path() / "plugins");
  EXPECT_EQ(allowed_candidates(recorded.string()), std::vector<std::string>{recorded.string()});
}

TEST_F(ModulePolicy, AFileOfTheSameNameInAnAllowedDirectoryStandsInForAMissingPath) {
  const fs::path installed = file("opt/libone.so");
  ferry::allow_module(dir.path() / "opt");
  const std::string recorded = "/build/tree/that/is/not/here/libone.so";
  EXPECT_EQ(allowed_candidates(recorded), std::vector<std::string>{installed.string()});
}

TEST_F(ModulePolicy, TheRecordedPathComesBeforeFilesOfItsNameElsewhere) {
  const fs::path recorded = file("a/libone.so");
  const fs::path elsewhere = file("b/libone.so");
  ferry::allow_module(dir.path() / "b");
  ferry::allow_module(recorded);
  EXPECT_EQ(allowed_candidates(recorded.string()),
            (std::vector<std::string>{recorded.string(), elsewhere.string()}));
}

TEST_F(ModulePolicy, AnAllowedFileDoesNotAllowItsNeighbours) {
  const fs::path allowed = file("lib/libone.so");
  const fs::path neighbour = file("lib/libtwo.so");
  ferry::allow_module(allowed);
  EXPECT_TRUE(allowed_candidates(neighbour.string()).empty());
  EXPECT_EQ(allowed_candidates(allowed.string()), std::vector<std::string>{allowed.string()});
}

TEST_F(ModulePolicy, ASymlinkOutOfAnAllowedDirectoryIsNotACandidate) {
  const fs::path outside = file("outside/libone.so");
  fs::create_directories(dir.path() / "plugins");
  fs::create_symlink(outside, dir.path() / "plugins" / "libone.so");
  ferry::allow_module(dir.path() / "plugins");
  EXPECT_TRUE(allowed_candidates((dir.path() / "plugins" / "libone.so").string()).empty());
  EXPECT_TRUE(allowed_candidates("/elsewhere/libone.so").empty());
}

TEST_F(ModulePolicy, DotDotInARecordedPathCannotLeaveAnAllowedDirectory) {
  const fs::path secret = file("secret/libone.so");
  fs::create_directories(dir.path() / "plugins");
  ferry::allow_module(dir.path() / "plugins");
  const std::string recorded = (dir.path() / "plugins" / ".." / "secret" / "libone.so").string();
  EXPECT_TRUE(allowed_candidates(recorded).empty()) << "resolved to " << secret;
  EXPECT_TRUE(allowed_candidates((dir.path() / "plugins" / "..").string()).empty());
}

TEST_F(ModulePolicy, PathsAreComparedByWholeComponents) {
  EXPECT_TRUE(ferry::detail::path_within("/a/b/c.so", "/a/b"));
  EXPECT_TRUE(ferry::detail::path_within("/a/b", "/a/b"));
  EXPECT_FALSE(ferry::detail::path_within("/a/bc/c.so", "/a/b"));
  EXPECT_FALSE(ferry::detail::path_within("/a", "/a/b"));
}

}  // namespace
