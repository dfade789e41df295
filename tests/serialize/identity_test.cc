// Copyright ferry authors.
//
// The identity coder (src/serialize/code/identity.cc) alone: code addresses and
// pointer records written and read back, and bytes that name code wrongly,
// each refused with the typed error and the offset that say what is wrong.
#include "serialize/code/identity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include <serialize/error.h>
#include <serialize/internal/identity.h>
#include <serialize/wire_format.h>

#include "serialize/code/module.h"

namespace wire = ferry::wire;
using ferry::input_archive;
using ferry::output_archive;

namespace identity_test {
__attribute__((noinline)) int twice(int x) { return 2 * x; }
}  // namespace identity_test

extern "C" __attribute__((noinline)) int ferry_identity_test_c_function(int x) { return x; }

namespace {

const char* const int_of_int = typeid(int(int)).name();

const void* twice_code() { return reinterpret_cast<const void*>(&identity_test::twice); }

template <class T>
void append(std::string& bytes, const T& value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
}

}  // namespace

TEST(Identity, AFunctionsAddressComesBackAsTheSameAddress) {
  std::string bytes;
  {
    output_archive out(bytes);
    ferry::detail::write_code_address(out, twice_code(), int_of_int);
  }
  input_archive in(bytes);
  EXPECT_EQ(ferry::detail::read_code_address(in, int_of_int), twice_code());
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(identity_test::twice(21), 42);
}

TEST(Identity, AnAddressReadAsAFunctionOfOtherParametersIsAnUnknownKey) {
  std::string bytes;
  {
    output_archive out(bytes);
    ferry::detail::write_code_address(out, twice_code(), int_of_int);
  }
  input_archive in(bytes);
  try {
    ferry::detail::read_code_address(in, typeid(int(double)).name());
    FAIL() << "read as the wrong type";
  } catch (const ferry::unknown_key_error& e) {
    EXPECT_NE(std::string(e.what()).find("does not take the parameters of"), std::string::npos)
        << e.what();
  }
}

TEST(Identity, AnAddressInsideAFunctionIsNotShippable) {
  std::string bytes;
  output_archive out(bytes);
  try {
    ferry::detail::write_code_address(out, static_cast<const char*>(twice_code()) + 1, int_of_int);
    FAIL() << "an address inside a function was written";
  } catch (const ferry::not_shippable_error& e) {
    EXPECT_NE(std::string(e.what()).find("no function symbol starts at offset"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(bytes.empty());
}

TEST(Identity, AFunctionWithCLinkageIsNotShippableAndTheMessageSaysWhatToDo) {
  std::string bytes;
  output_archive out(bytes);
  try {
    ferry::detail::write_code_address(
        out, reinterpret_cast<const void*>(&ferry_identity_test_c_function), int_of_int);
    FAIL() << "a C function was written";
  } catch (const ferry::not_shippable_error& e) {
    EXPECT_NE(std::string(e.what()).find("C linkage"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("wrap the call in a capture-less lambda"), std::string::npos)
        << e.what();
  }
}

TEST(Identity, APointerRecordReadForAnotherSignatureIsATypeMismatch) {
  std::string bytes;
  {
    output_archive out(bytes);
    ferry::detail::write_pointer_record(out, twice_code(), int_of_int);
  }
  input_archive in(bytes);
  ASSERT_EQ(ferry::detail::read_function_tag(in), wire::function_tag::pointer);
  EXPECT_THROW(ferry::detail::read_pointer_record(in, typeid(long(long)).name()),
               ferry::type_mismatch_error);
}

TEST(Identity, PeekingAPointerRecordReadsItsIdentityAndResolvesNothing) {
  std::string bytes;
  {
    output_archive out(bytes);
    ferry::detail::write_pointer_record(out, twice_code(), int_of_int);
  }
  input_archive in(bytes);
  const ferry::detail::recorded_identity id = ferry::detail::peek_identity(in);
  EXPECT_EQ(id.tag, wire::function_tag::pointer);
  EXPECT_EQ(id.signature, int_of_int);
  ASSERT_EQ(id.code.size(), 1u);
  EXPECT_EQ(id.code[0].first, 0u);  // the first module named
  const ferry::detail::module_record& m = ferry::detail::module_containing(twice_code());
  EXPECT_EQ(id.code[0].second, reinterpret_cast<std::uintptr_t>(twice_code()) - m.base);
  EXPECT_EQ(in.remaining(), 0u);
}

TEST(Identity, AnUnknownFunctionTagIsAFormatErrorAtItsOffset) {
  std::string bytes = "xx";
  append(bytes, std::uint8_t{9});
  input_archive in(bytes);
  in.skip(2);
  try {
    ferry::detail::read_function_tag(in);
    FAIL() << "tag 9 was accepted";
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), 2u);
    EXPECT_NE(std::string(e.what()).find("unknown function tag 9"), std::string::npos) << e.what();
  }
}

TEST(Identity, AModuleReferenceBeyondTheModulesNamedSoFarIsAFormatError) {
  std::string bytes;
  append(bytes, std::uint32_t{5});
  append(bytes, std::uint64_t{0});
  input_archive in(bytes);
  try {
    ferry::detail::read_code_address(in, int_of_int);
    FAIL() << "reference 5 was accepted";
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), 0u);
    EXPECT_NE(std::string(e.what()).find("only 0 modules were named before it"), std::string::npos)
        << e.what();
  }
}

TEST(Identity, ASignatureLongerThanTheLimitIsRefusedBeforeItIsRead) {
  std::string bytes;
  append(bytes, std::uint64_t{wire::max_signature + 1});
  bytes.append(wire::max_signature + 1, 'F');
  input_archive in(bytes);
  try {
    ferry::detail::read_pointer_record(in, int_of_int);
    FAIL() << "an over-long signature was accepted";
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), 0u);
    EXPECT_NE(std::string(e.what()).find("longer than the limit"), std::string::npos) << e.what();
  }
}

TEST(Identity, ALengthFieldLargerThanTheBytesLeftAllocatesNothing) {
  std::string bytes;
  append(bytes, std::uint64_t{1} << 60);
  input_archive in(bytes);
  EXPECT_THROW(ferry::detail::read_pointer_record(in, int_of_int), ferry::format_error);
}

TEST(Identity, CodeNamedThroughTheModuleDirectoryComesBack) {
  std::string bytes;
  {
    output_archive out(bytes);
    ferry::detail::list_modules_at_end(out);
    ferry::detail::write_code_address(out, twice_code(), int_of_int);
    ferry::detail::write_code_address(out, twice_code(), int_of_int);  // the same module again
    ferry::detail::write_module_directory(out);
  }
  input_archive in(bytes);
  ferry::detail::read_module_directory(in);
  EXPECT_EQ(ferry::detail::read_code_address(in, int_of_int), twice_code());
  EXPECT_EQ(ferry::detail::read_code_address(in, int_of_int), twice_code());
  EXPECT_NO_THROW(ferry::detail::finish_payload(in));
}

TEST(Identity, ADirectoryListingAModuleNothingRefersToIsAFormatError) {
  std::string bytes;
  {
    output_archive out(bytes);
    ferry::detail::list_modules_at_end(out);
    ferry::detail::write_code_address(out, twice_code(), int_of_int);
    ferry::detail::write_module_directory(out);
  }
  input_archive in(bytes);
  ferry::detail::read_module_directory(in);
  in.skip(sizeof(std::uint32_t) + sizeof(std::uint64_t));  // the reference, never resolved
  try {
    ferry::detail::finish_payload(in);
    FAIL() << "an unreferenced module was accepted";
  } catch (const ferry::format_error& e) {
    EXPECT_NE(std::string(e.what()).find("which nothing in the payload refers to"), std::string::npos)
        << e.what();
  }
}

TEST(Identity, ADirectoryFooterThatLiesIsAFormatError) {
  std::string too_short(wire::directory_footer_size - 1, '\0');
  input_archive short_in(too_short);
  EXPECT_THROW(ferry::detail::read_module_directory(short_in), ferry::format_error);

  std::string bytes;
  append(bytes, std::uint32_t{1});     // modules
  append(bytes, std::uint32_t{1000});  // bytes before the footer: there are none
  input_archive big_in(bytes);
  try {
    ferry::detail::read_module_directory(big_in);
    FAIL() << "a directory larger than the payload was accepted";
  } catch (const ferry::format_error& e) {
    EXPECT_EQ(e.offset(), 4u);
  }

  bytes.clear();
  append(bytes, std::uint32_t{wire::max_modules_per_payload + 1});
  append(bytes, std::uint32_t{0});
  input_archive many_in(bytes);
  EXPECT_THROW(ferry::detail::read_module_directory(many_in), ferry::format_error);
}

TEST(Identity, FunctionsNestedPastTheLimitAreRefusedBothWays) {
  std::string bytes = "x";
  input_archive in(bytes);
  std::string out_bytes;
  output_archive out(out_bytes);
  std::vector<std::unique_ptr<ferry::detail::depth_guard>> held;
  for (std::size_t i = 0; i < wire::max_function_depth; ++i) {
    held.push_back(std::make_unique<ferry::detail::depth_guard>(in));
    held.push_back(std::make_unique<ferry::detail::depth_guard>(out));
  }
  EXPECT_THROW(ferry::detail::depth_guard{in}, ferry::format_error);
  EXPECT_THROW(ferry::detail::depth_guard{out}, ferry::not_shippable_error);
  held.pop_back();
  held.pop_back();
  EXPECT_NO_THROW(ferry::detail::depth_guard{in});  // a guard gone gives its level back
}
