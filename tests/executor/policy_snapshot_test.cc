// Copyright ferry authors.
//
// This process's module policy as it travels to the processes that run
// its tasks (src/executor/core/policy_snapshot.cc): taken, sent through an
// archive, and applied on the same host, where a path that cannot be
// allowed is an error, or on another, which may lack some paths.
#include "executor/core/policy_snapshot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <serialize/archive.h>
#include <serialize/error.h>
#include <serialize/module_policy.h>

#include "../temp_dir.h"

namespace {

using ferry::detail::apply_module_policy;
using ferry::detail::policy_host;
using ferry::detail::policy_snapshot;

bool holds(const std::vector<std::string>& paths, const std::filesystem::path& p) {
  return std::find(paths.begin(), paths.end(), std::filesystem::canonical(p).string()) != paths.end();
}

}  // namespace

TEST(PolicySnapshot, ItCarriesTheAllowedModulesAndSearchDirectoriesThroughAnArchive) {
  ferry_test::temp_dir dir;
  ferry::allow_module(FERRY_TEST_MARKER_MODULE);
  ferry::add_module_search_path(dir.path());
  std::string bytes;
  {
    ferry::output_archive out(bytes);
    out(ferry::detail::snapshot_module_policy());
  }
  policy_snapshot got;
  ferry::input_archive in(bytes);
  in(got);
  EXPECT_TRUE(holds(got.allowed_modules, FERRY_TEST_MARKER_MODULE));
  EXPECT_TRUE(holds(got.module_search_paths, dir.path()));
}

TEST(PolicySnapshot, AModuleThatCannotBeAllowedIsAnErrorOnTheSameHostOnly) {
  policy_snapshot policy;
  policy.allowed_modules = {"/no/such/directory/libtasks.so"};
  EXPECT_THROW(apply_module_policy(policy, policy_host::same), ferry::error);
  EXPECT_NO_THROW(apply_module_policy(policy, policy_host::other));
}

TEST(PolicySnapshot, ASearchDirectoryMissingHereIsSkippedOnEitherHost) {
  policy_snapshot policy;
  policy.module_search_paths = {"/no/such/directory"};
  EXPECT_NO_THROW(apply_module_policy(policy, policy_host::same));
  EXPECT_NO_THROW(apply_module_policy(policy, policy_host::other));
  for (const auto& p : ferry::module_search_paths()) EXPECT_NE(p, "/no/such/directory");
}

TEST(PolicySnapshot, AppliedItAddsToThisProcesssPolicy) {
  ferry_test::temp_dir dir;
  policy_snapshot policy;
  policy.module_search_paths = {dir.path().string()};
  apply_module_policy(policy, policy_host::other);
  const auto searched = ferry::module_search_paths();
  EXPECT_NE(std::find(searched.begin(), searched.end(), std::filesystem::canonical(dir.path())), searched.end());
  const auto allowed = ferry::allowed_modules();
  EXPECT_NE(std::find(allowed.begin(), allowed.end(), std::filesystem::canonical(dir.path())), allowed.end());
}
