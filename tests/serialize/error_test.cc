// Copyright ferry authors.
//
// The serialization layer's errors (src/serialize/frame/error.cc): what
// each says, and the fields a program reads instead of parsing it.
#include <serialize/error.h>

#include <gtest/gtest.h>

#include <string>

namespace {

// The format_error `f` throws.
template <class F>
ferry::format_error format_error_of(F&& f) {
  try {
    f();
  } catch (const ferry::format_error& e) {
    return e;
  }
  ADD_FAILURE() << "no format_error";
  return ferry::format_error(0, "");
}

}  // namespace

TEST(Error, AFormatErrorNamesTheOffsetAndTheProblem) {
  const ferry::format_error e(12, "not ferry data");
  EXPECT_STREQ(e.what(), "ferry: bad bytes at offset 12: not ferry data");
  EXPECT_EQ(e.offset(), 12u);
}

TEST(Error, TheReadersFormatErrorsSayWhatTheBytesHeldAgainstWhatWasLeft) {
  EXPECT_STREQ(format_error_of([] { ferry::detail::throw_truncated(5, 8, 3); }).what(),
               "ferry: bad bytes at offset 5: truncated: 8 bytes expected, 3 left");
  EXPECT_STREQ(format_error_of([] { ferry::detail::throw_bad_length(9, 1u << 30, 16); }).what(),
               "ferry: bad bytes at offset 9: length 1073741824 is more than the 16 bytes left");
  EXPECT_STREQ(format_error_of([] { ferry::detail::throw_trailing_bytes(40, 2); }).what(),
               "ferry: bad bytes at offset 40: 2 unexpected bytes after the value");
  EXPECT_STREQ(format_error_of([] { ferry::detail::throw_bad_bool(3, 7); }).what(),
               "ferry: bad bytes at offset 3: a bool of value 7, neither 0 nor 1");
  EXPECT_EQ(format_error_of([] { ferry::detail::throw_cereal_error(6, "bad variant index"); }).offset(), 6u);
}

TEST(Error, AModuleNotAllowedSaysHowToAllowIt) {
  const ferry::module_not_allowed_error e("/opt/plugins/libx.so");
  EXPECT_EQ(e.path(), "/opt/plugins/libx.so");
  EXPECT_NE(std::string(e.what()).find("call ferry::allow_module() with it or its directory"), std::string::npos);
}

TEST(Error, AModuleNotFoundSaysWhereItWasLookedFor) {
  const std::string what = ferry::module_not_found_error("/opt/plugins/libx.so").what();
  EXPECT_NE(what.find("found neither at that path, nor in any allowed directory, nor by its build-id"),
            std::string::npos) << what;
}

TEST(Error, ABuildIdMismatchNamesBothIdsAndTheFileExamined) {
  const ferry::build_id_mismatch_error moved("/a/libx.so", "aa11", "bb22", "/search/libx.so");
  EXPECT_STREQ(moved.what(),
               "ferry: module '/a/libx.so' was looked for at '/search/libx.so', which has build-id bb22 but "
               "the bytes were made with build-id aa11; sender and receiver must run the same build of that module "
               "(bytes kept across builds need a stable name: ferry::named)");
  EXPECT_EQ(moved.expected(), "aa11");
  EXPECT_EQ(moved.found(), "bb22");
  EXPECT_EQ(moved.examined(), "/search/libx.so");
  const ferry::build_id_mismatch_error in_place("/a/libx.so", "aa11", "", "");
  EXPECT_NE(std::string(in_place.what()).find("'/a/libx.so' has build-id (none) but"), std::string::npos)
      << in_place.what();
  EXPECT_EQ(in_place.examined(), "/a/libx.so");
}

TEST(Error, AnUnknownKeyNamesTheKeyAndTheModule) {
  const ferry::unknown_key_error e(77, "/a/libx.so", "it was built without that function");
  EXPECT_STREQ(e.what(),
               "ferry: module '/a/libx.so' registers no callable under key 77: it was built without that function");
  EXPECT_EQ(e.key(), 77u);
  EXPECT_EQ(e.module_path(), "/a/libx.so");
  EXPECT_STREQ(ferry::unknown_key_error(77, "/a/libx.so", "").what(),
               "ferry: module '/a/libx.so' registers no callable under key 77");
}

TEST(Error, TheRestSayWhatWentWrong) {
  EXPECT_STREQ(ferry::type_mismatch_error("int(int)", "double()").what(),
               "ferry: the bytes hold a callable of signature 'double()' but 'int(int)' was asked for");
  EXPECT_STREQ(ferry::authentication_error("the signature does not match").what(),
               "ferry: authentication failed: the signature does not match");
  EXPECT_STREQ(ferry::bad_function_call().what(), "ferry: call of an empty ferry::function");
  EXPECT_STREQ(ferry::module_load_error("/a/libx.so", "undefined symbol: f").what(),
               "ferry: cannot load module '/a/libx.so': undefined symbol: f");
}
