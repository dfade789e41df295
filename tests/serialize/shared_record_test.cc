// Copyright ferry authors.
//
// Shared records: a closure type whose name is unique in a program is named
// by every module that registers it, and any one of them may make it
// (serialize/wire_format.h, function_tag::shared). Types whose names can
// collide keep the (module, key) identity.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include <serialize/serialize.h>

#include "../child_output.h"
#include "../fixtures/header_closure.h"
#include "test_util.h"

using ferry::testing::reseal;

namespace {

template <class F>
bool unique_name(const F&) {
  return ferry::detail::registration<F, int(int)>::entry.unique_name;
}

auto in_anonymous_namespace() {
  return [](int x) { return x; };
}

struct anonymous_functor {
  int operator()(int x) const { return x; }
};

}  // namespace

static auto in_static_function() {
  return [](int x) { return x; };
}

auto in_function_with_external_linkage() {
  return [](int x) { return x; };
}

inline auto in_inline_function() {
  return [](int x) { return x; };
}

namespace shared_record_test {
struct functor {
  int operator()(int x) const { return x; }
};
}  // namespace shared_record_test

TEST(SharedRecordUniqueName, ClosuresOfInlineFunctionsAndNamespaceScopeTypesHaveUniqueNames) {
  EXPECT_TRUE(unique_name(in_inline_function()));
  EXPECT_TRUE(unique_name(shared_record_test::functor{}));
}

TEST(SharedRecordUniqueName, NamesThatCanCollideAreNotUnique) {
  EXPECT_FALSE(unique_name(in_anonymous_namespace()));
  EXPECT_FALSE(unique_name(anonymous_functor{}));
  EXPECT_FALSE(unique_name(in_static_function()));
  // A non-inline function's lambdas exist in one module only; the compilers
  // mark them so (GCC's '*', Clang's "$_").
  EXPECT_FALSE(unique_name(in_function_with_external_linkage()));
}

namespace {

constexpr std::size_t tag_at = ferry::wire::header_size;

std::uint8_t tag_of(const std::string& frame) { return static_cast<std::uint8_t>(frame[tag_at]); }

// Keeps the plugin loaded for the test's lifetime.
struct loaded_plugin {
  loaded_plugin() : handle(dlopen(FERRY_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL)) {}
  ~loaded_plugin() {
    if (handle != nullptr) dlclose(handle);
  }
  void* handle;
};

bool plugin_is_loaded() {
  void* h = dlopen(FERRY_TEST_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
  if (h != nullptr) dlclose(h);
  return h != nullptr;
}

}  // namespace

TEST(SharedRecord, ATypeOnlyThisProgramRegistersIsKeyed) {
  ASSERT_FALSE(plugin_is_loaded());
  const std::string bytes = ferry::dumps(fixtures::header_closure(2));
  EXPECT_EQ(tag_of(bytes), static_cast<std::uint8_t>(ferry::wire::function_tag::keyed));
  EXPECT_EQ(ferry::testing::round_trip(fixtures::header_closure(2))(5), 17);
}

TEST(SharedRecord, ATypeTwoModulesRegisterNamesBothAndRuns) {
  loaded_plugin plugin;
  ASSERT_NE(plugin.handle, nullptr) << dlerror();
  const std::string bytes = ferry::dumps(fixtures::header_closure(2));
  ASSERT_EQ(tag_of(bytes), static_cast<std::uint8_t>(ferry::wire::function_tag::shared));
  EXPECT_EQ(static_cast<std::uint8_t>(bytes[tag_at + 1]), 2);
  // This program's own copy was wrapped, but the program is listed last: a
  // process running another program could not load it.
  const ferry::inspection what = ferry::inspect(bytes);
  ASSERT_EQ(what.modules.size(), 2u);
  EXPECT_NE(what.modules[0].path.find("ferry_test_plugin"), std::string::npos) << what.modules[0].path;
  EXPECT_EQ(ferry::loads<ferry::function<int(int)>>(bytes)(5), 17);
}

// The plugin made these bytes and names itself first; this process has the
// same build of the code in its own executable and runs it from there,
// without loading the plugin.
TEST(SharedRecord, AListedModuleAlreadyLoadedIsUsedWithoutLoadingAnother) {
  const std::string bytes = ferry_test::output_of_child([] {
    void* h = dlopen(FERRY_TEST_PLUGIN, RTLD_NOW);
    auto make = h ? reinterpret_cast<std::string* (*)(const char*)>(dlsym(h, "ferry_test_make")) : nullptr;
    if (make == nullptr) throw std::runtime_error("cannot load the test plugin");
    return *make("header");
  });
  ASSERT_EQ(tag_of(bytes), static_cast<std::uint8_t>(ferry::wire::function_tag::shared));
  EXPECT_EQ(ferry::loads<ferry::function<int(int)>>(bytes)(5), 22);  // the plugin captured 3
  EXPECT_FALSE(plugin_is_loaded());
}

TEST(SharedRecord, ACountOutsideTwoToTheLimitIsAFormatError) {
  loaded_plugin plugin;
  ASSERT_NE(plugin.handle, nullptr) << dlerror();
  const std::string bytes = ferry::dumps(fixtures::header_closure(2));
  ASSERT_EQ(tag_of(bytes), static_cast<std::uint8_t>(ferry::wire::function_tag::shared));
  for (int count : {0, 1, static_cast<int>(ferry::wire::max_shared_modules) + 1}) {
    std::string edited = bytes;
    edited[tag_at + 1] = static_cast<char>(count);
    try {
      ferry::loads<ferry::function<int(int)>>(reseal(edited));
      ADD_FAILURE() << "count " << count << " was accepted";
    } catch (const ferry::format_error& e) {
      EXPECT_EQ(e.offset(), tag_at + 1) << e.what();
      EXPECT_NE(std::string(e.what()).find("shared record"), std::string::npos) << e.what();
    }
  }
}
