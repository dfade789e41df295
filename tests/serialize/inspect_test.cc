// Copyright ferry authors.
//
// src/serialize/frame/inspect.cc on functions of this program: each kind
// of function record read back without loading or running anything, and
// bytes that are no frame refused. Modules this process has not loaded
// (loadable, refused) are module_test.cc's, with its fixture plugins.
#include <serialize/inspect.h>

#include <gtest/gtest.h>

#include <string>

#include <serialize/serialize.h>

namespace {

using int_fn = ferry::function<int(int)>;

int twice(int x) { return 2 * x; }

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

TEST(Inspect, AnEmptyFunctionIsOnlyItsKind) {
  const ferry::inspection what = ferry::inspect(ferry::dumps(int_fn{}));
  EXPECT_EQ(what.kind, "empty");
  EXPECT_TRUE(what.modules.empty());
  EXPECT_EQ(ferry::to_string(what), "function: empty\n");
}

TEST(Inspect, AClosureOfThisProgramIsKeyedAndLoadedWithItsTypesAndBuild) {
  const int_fn f = ferry::closure([](int k, int x) { return k + x; }, 3);
  const ferry::inspection what = ferry::inspect(ferry::dumps(f));
  EXPECT_EQ(what.kind, "keyed");
  EXPECT_FALSE(what.is_signed);
  EXPECT_EQ(what.signature, "int (int)");
  EXPECT_FALSE(what.type_name.empty());
  ASSERT_EQ(what.modules.size(), 1u);
  const ferry::inspection::module& m = what.modules[0];
  EXPECT_TRUE(m.holds_function);
  EXPECT_NE(m.key, 0u);
  EXPECT_EQ(m.status, ferry::inspection::module_status::loaded);
  EXPECT_FALSE(m.file.empty());
  EXPECT_TRUE(m.refusal.empty());
  EXPECT_EQ(m.build_id.size() % 2, 0u);
  EXPECT_EQ(m.build_id.find_first_not_of("0123456789abcdef"), std::string::npos) << m.build_id;
  const std::string text = ferry::to_string(what);
  EXPECT_TRUE(contains(text, "function: keyed\n")) << text;
  EXPECT_TRUE(contains(text, "holds: the function's type, key " + std::to_string(m.key))) << text;
  EXPECT_TRUE(contains(text, "status: loaded, from " + m.file)) << text;
}

TEST(Inspect, AFunctionPointerNamesItsSignatureAndOffset) {
  const ferry::inspection what = ferry::inspect(ferry::dumps(int_fn(&twice)));
  EXPECT_EQ(what.kind, "pointer");
  EXPECT_EQ(what.signature, "int (int)");
  ASSERT_EQ(what.modules.size(), 1u);
  EXPECT_TRUE(what.modules[0].holds_function);
  EXPECT_TRUE(contains(ferry::to_string(what), "holds: the function, at offset " + std::to_string(what.modules[0].key)));
}

TEST(Inspect, ANamedFunctionIsFoundByItsNameAmongTheLoadedModules) {
  const int_fn f = ferry::named<"tests.inspect.add_one.v1">([](int x) { return x + 1; });
  const ferry::inspection what = ferry::inspect(ferry::dumps(f));
  EXPECT_EQ(what.kind, "named");
  EXPECT_EQ(what.stable_name, "tests.inspect.add_one.v1");
  EXPECT_EQ(what.signature, "int (int)");
  ASSERT_EQ(what.modules.size(), 1u);
  EXPECT_EQ(what.modules[0].status, ferry::inspection::module_status::loaded);
  EXPECT_TRUE(contains(ferry::to_string(what), "stable name: tests.inspect.add_one.v1\n"));
}

TEST(Inspect, ASignedFrameIsReadWithoutItsKeyAndSaysSo) {
  const int_fn f = ferry::closure([](int k, int x) { return k * x; }, 4);
  const ferry::inspection what = ferry::inspect(ferry::dumps(f, ferry::signing_key::generate()));
  EXPECT_TRUE(what.is_signed);
  EXPECT_EQ(what.kind, "keyed");
  EXPECT_TRUE(contains(ferry::to_string(what), "function: keyed (signed; signature not checked)\n"));
}

TEST(Inspect, BytesThatAreNotAFrameAreAFormatError) {
  EXPECT_THROW(ferry::inspect(""), ferry::format_error);
  EXPECT_THROW(ferry::inspect("not a frame of ferry at all, only text"), ferry::format_error);
}

TEST(Inspect, ATruncatedFrameIsAFormatError) {
  const std::string bytes = ferry::dumps(int_fn(ferry::closure([](int k, int x) { return k - x; }, 2)));
  for (const std::size_t keep : {bytes.size() - 1, bytes.size() / 2, std::size_t{5}})
    EXPECT_THROW(ferry::inspect(bytes.substr(0, keep)), ferry::format_error) << "kept " << keep;
}

TEST(Inspect, ASignedFrameTooShortForItsSignatureNamesWhatIsMissing) {
  const std::string bytes = ferry::dumps(int_fn(&twice), ferry::signing_key::generate());
  try {
    (void)ferry::inspect(bytes.substr(0, 40));
    ADD_FAILURE() << "a signed frame of 40 bytes was inspected";
  } catch (const ferry::format_error& e) {
    EXPECT_TRUE(contains(e.what(), "32-byte signature")) << e.what();
  }
}

}  // namespace
