// Copyright ferry authors.
//
// A pool vouches for its own code: its workers load the modules its tasks
// name without ferry::allow_module (the tests' task library is never
// allowed either), including a plugin the parent loaded after its workers
// started, with dlopen or Boost.DLL; a file swapped for another build since
// is refused by its build-id. Once per start method.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <string>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

namespace fs = std::filesystem;
using ferry_test::get_within;
using Vouching = ferry_test::ExecutorTest;

namespace {

using int_fn = ferry::function<int(int)>;
using make_fn = std::string* (*)(const char*);

// A closure of the plugin at `path`, which this process loads with dlopen.
int_fn closure_of(void* handle, const char* kind) {
  auto make = reinterpret_cast<make_fn>(::dlsym(handle, "ferry_test_make"));
  EXPECT_NE(make, nullptr);
  std::unique_ptr<std::string> bytes(make(kind));
  return ferry::loads<int_fn>(*bytes);
}

// A directory of the test's own, removed afterwards.
struct scratch_dir {
  fs::path path = fs::temp_directory_path() / ("ferry_vouching_" + std::to_string(::getpid()));
  scratch_dir() { fs::create_directories(path); }
  ~scratch_dir() { fs::remove_all(path); }
};

}  // namespace

TEST_F(Vouching, TaskLibraryIsLoadedWithoutAnyAllowance) {
  EXPECT_TRUE(ferry::allowed_modules().empty());
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::add(), 2, 3);
  EXPECT_EQ(get_within(f), 5);
}

TEST_F(Vouching, PluginDlopenedAfterTheWorkersStartedRunsInThem) {
  ferry::process_pool pool(ferry_test::options(1));
  ferry_test::start_one_worker(pool);  // a forked worker is older than the plugin
  void* handle = ::dlopen(FERRY_TEST_PLUGIN, RTLD_NOW);
  ASSERT_NE(handle, nullptr) << ::dlerror();
  auto lambda = pool.submit(closure_of(handle, "lambda"), 1);
  auto pointer = pool.submit(closure_of(handle, "pointer"), 5);
  auto closure = pool.submit(closure_of(handle, "closure"), 1);
  auto named = pool.submit(closure_of(handle, "named"), 1);  // ferry::named
  EXPECT_EQ(get_within(lambda), 2);
  EXPECT_EQ(get_within(pointer), 10);
  EXPECT_EQ(get_within(closure), 4);
  EXPECT_EQ(get_within(named), 11);
}

TEST_F(Vouching, PluginLoadedThroughBoostDllRunsInTheWorkers) {
  ferry::process_pool pool(ferry_test::options(1));
  ferry_test::start_one_worker(pool);
  boost::dll::shared_library plugin(boost::dll::fs::path(FERRY_TEST_PLUGIN_VARIANT),
                                    boost::dll::load_mode::rtld_now);
  auto make = plugin.get<std::string*(const char*)>("ferry_test_make");
  std::unique_ptr<std::string> bytes(make("pointer"));
  auto f = pool.submit(ferry::loads<int_fn>(*bytes), 5);
  EXPECT_EQ(get_within(f), 11);  // the variant's twice: 2x + 1
}

TEST_F(Vouching, ModuleSwappedForAnotherBuildIsRefusedByItsBuildId) {
  ferry::process_pool pool(ferry_test::options(1));
  ferry_test::start_one_worker(pool);  // has not loaded the plugin, whatever the method
  scratch_dir dir;
  const fs::path library = dir.path / fs::path(FERRY_TEST_PLUGIN).filename();
  fs::copy_file(FERRY_TEST_PLUGIN, library);
  void* handle = ::dlopen(library.c_str(), RTLD_NOW);
  ASSERT_NE(handle, nullptr) << ::dlerror();
  const int_fn f = closure_of(handle, "lambda");
  // Another build in its place; this process keeps the file it mapped.
  fs::copy_file(FERRY_TEST_PLUGIN_VARIANT, dir.path / "next");
  fs::rename(dir.path / "next", library);
  auto result = pool.submit(f, 1);
  auto e = ferry_test::expect_error<ferry::serialization_error>([&] { get_within(result); });
  EXPECT_EQ(e.where(), ferry::serialization_error::phase::loading_task);
  EXPECT_EQ(e.type_name(), "ferry::build_id_mismatch_error");
  ferry_test::expect_pool_serves(pool);
}

// The parent's file is gone by the time the worker looks (another prefix,
// another host): the worker finds the same build in the search directories
// the pool handed it when it started.
TEST_F(Vouching, WorkersFindAModuleByItsBuildIdInTheSearchDirectories) {
  scratch_dir dir;
  fs::create_directories(dir.path / "elsewhere");
  fs::copy_file(FERRY_TEST_PLUGIN, dir.path / "elsewhere" / "same_build.so");
  ferry::add_module_search_path(dir.path / "elsewhere");
  ferry::process_pool pool(ferry_test::options(1));
  ferry_test::start_one_worker(pool);  // started before the plugin is loaded here
  const fs::path installed = dir.path / "installed" / fs::path(FERRY_TEST_PLUGIN).filename();
  fs::create_directories(installed.parent_path());
  fs::copy_file(FERRY_TEST_PLUGIN, installed);
  void* handle = ::dlopen(installed.c_str(), RTLD_NOW);
  ASSERT_NE(handle, nullptr) << ::dlerror();
  const int_fn f = closure_of(handle, "lambda");
  fs::remove_all(dir.path / "installed");
  auto r = pool.submit(f, 41);
  EXPECT_EQ(get_within(r), 42);
  ferry::clear_allowed_modules();
}

