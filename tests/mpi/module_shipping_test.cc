// Copyright ferry authors.
//
// src/mpi/module_shipping.cc: a module's file sent to a host that lacks it.
// The agent stores it only when the bytes hash to the announced SHA-256
// and the file is the announced build; never half a file, never twice.
// No MPI job: the message is made and stored here.
#include "mpi/module_shipping.h"

#include <gtest/gtest.h>

#include <openssl/sha.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <serialize/archive.h>
#include <serialize/error.h>
#include "serialize/code/payload_code.h"
#include "../temp_dir.h"

namespace {

namespace fs = std::filesystem;
using ferry::detail::mpi::module_message;
using ferry::detail::mpi::store_module;

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string sha256(const std::string& bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

// A message written by hand: any announced build-id, hash and bytes.
std::string message(const std::string& path, const std::string& build_id, const std::string& hash,
                    const std::string& bytes) {
  std::string out;
  ferry::output_archive ar(out);
  ar(path, build_id, hash, bytes);
  return out;
}

const std::string& plugin_build_id() {
  static const std::string id = ferry::detail::file_build_id(FERRY_TEST_PLUGIN);
  return id;
}

bool empty_dir(const fs::path& dir) { return fs::is_empty(dir); }

TEST(ModuleShipping, AModuleTravelsWholeAndIsStoredUnderItsBuildId) {
  ferry_test::temp_dir dir;
  ASSERT_FALSE(plugin_build_id().empty());
  const fs::path stored = store_module(module_message(FERRY_TEST_PLUGIN, plugin_build_id()), dir.path());
  ASSERT_FALSE(stored.empty());
  EXPECT_EQ(stored.parent_path(), dir.path());
  EXPECT_EQ(stored.extension(), ".so");
  EXPECT_EQ(contents(stored), contents(FERRY_TEST_PLUGIN));
  EXPECT_EQ(ferry::detail::file_build_id(stored.string()), plugin_build_id());
}

TEST(ModuleShipping, AModuleStoredAlreadyIsNotStoredAgain) {
  ferry_test::temp_dir dir;
  const std::string m = module_message(FERRY_TEST_PLUGIN, plugin_build_id());
  ASSERT_FALSE(store_module(m, dir.path()).empty());
  EXPECT_TRUE(store_module(m, dir.path()).empty());
}

TEST(ModuleShipping, BytesThatDoNotHashToTheAnnouncedSha256AreNotStored) {
  ferry_test::temp_dir dir;
  std::string bytes = contents(FERRY_TEST_PLUGIN);
  const std::string hash = sha256(bytes);
  bytes[bytes.size() / 2] ^= 0x20;
  try {
    store_module(message(FERRY_TEST_PLUGIN, plugin_build_id(), hash, bytes), dir.path());
    ADD_FAILURE() << "changed bytes were stored";
  } catch (const ferry::error& e) {
    EXPECT_NE(std::string(e.what()).find("do not match their SHA-256"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(empty_dir(dir.path()));
}

TEST(ModuleShipping, AFileOfAnotherBuildThanAnnouncedIsNotStoredNorLeftHalfWritten) {
  ferry_test::temp_dir dir;
  const std::string bytes = contents(FERRY_TEST_PLUGIN);
  const std::string other_id(plugin_build_id().size(), '\x5a');
  try {
    store_module(message(FERRY_TEST_PLUGIN, other_id, sha256(bytes), bytes), dir.path());
    ADD_FAILURE() << "a file of another build was stored";
  } catch (const ferry::error& e) {
    EXPECT_NE(std::string(e.what()).find("not the announced"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(empty_dir(dir.path())) << "a partial file was left";
}

TEST(ModuleShipping, AModuleThatCannotBeReadOrIsAnotherBuildNowIsNotSent) {
  EXPECT_THROW(module_message("/nonexistent/libgone.so", plugin_build_id()), ferry::module_load_error);
  try {
    module_message(FERRY_TEST_PLUGIN, std::string(plugin_build_id().size(), '\x01'));
    ADD_FAILURE() << "a rebuilt module was sent as the loaded build";
  } catch (const ferry::module_load_error& e) {
    EXPECT_NE(std::string(e.what()).find("no longer the build"), std::string::npos) << e.what();
  }
}

}  // namespace
