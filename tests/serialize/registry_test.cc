// Copyright ferry authors.
//
// src/serialize/code/registry.cc: the entries of every loaded module, found
// by address, by stable name, by the signature of a pointer they can call,
// and by a type whose name is the same type in every module. Entries are
// made here by hand, as a module's static initialization makes them, and
// unregistered when they go, as a module's unloading does.
#include "serialize/code/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "serialize/code/module.h"

// Named: the unity build joins this file with others that use the same
// short names.
namespace registry_cases {

using ferry::detail::registry_entry;

ferry::detail::callable_any* make_nothing(ferry::input_archive&) { return nullptr; }
ferry::detail::callable_any* call_nothing(const void*) { return nullptr; }

std::uintptr_t address_of(const registry_entry& e) { return reinterpret_cast<std::uintptr_t>(&e); }

// Mangled names as GCC writes them: an external type, one in an anonymous
// namespace, a local lambda (internal linkage), and an unnamed type.
constexpr const char* external_type = "N5tests6scaleE";
constexpr const char* anonymous_type = "N12_GLOBAL__N_15scaleE";
constexpr const char* local_lambda = "*ZN5tests3runEvEUliE_";
constexpr const char* internal_name = "ZL5scale";
constexpr const char* unnamed_type = "N5tests3Ut_E";
constexpr const char* int_of_int = "FiiE";

TEST(Registry, AnEntryIsFoundByItsAddressUntilItGoes) {
  std::uintptr_t address = 0;
  {
    const registry_entry e(external_type, int_of_int, make_nothing, nullptr, nullptr);
    address = address_of(e);
    EXPECT_EQ(ferry::detail::find_entry(address), &e);
  }
  EXPECT_EQ(ferry::detail::find_entry(address), nullptr);
}

TEST(Registry, AnAddressThatHoldsNoEntryIsNotOne) {
  const int not_an_entry = 0;
  EXPECT_EQ(ferry::detail::find_entry(reinterpret_cast<std::uintptr_t>(&not_an_entry)), nullptr);
  EXPECT_EQ(ferry::detail::find_entry(0), nullptr);
}

TEST(Registry, ATypeNameOfNoLinkageLosesItsStarAndIsNotUnique) {
  const registry_entry e(local_lambda, int_of_int, make_nothing, nullptr, nullptr);
  EXPECT_STREQ(e.type_name, local_lambda + 1);
  EXPECT_FALSE(e.unique_name);
  EXPECT_EQ(e.type_hash, ferry::detail::type_hash(local_lambda + 1, int_of_int));
}

TEST(Registry, OnlyANameOfExternalLinkageIsUniqueInAProgram) {
  EXPECT_TRUE(registry_entry(external_type, int_of_int, make_nothing, nullptr, nullptr).unique_name);
  EXPECT_FALSE(registry_entry(anonymous_type, int_of_int, make_nothing, nullptr, nullptr).unique_name);
  EXPECT_FALSE(registry_entry(internal_name, int_of_int, make_nothing, nullptr, nullptr).unique_name);
  EXPECT_FALSE(registry_entry(unnamed_type, int_of_int, make_nothing, nullptr, nullptr).unique_name);
  EXPECT_FALSE(registry_entry("N5tests5$_0E", int_of_int, make_nothing, nullptr, nullptr).unique_name)
      << "Clang's numbering of a file's lambdas";
}

TEST(Registry, TheTypeHashTellsTypeFromSignatureAndOrder) {
  const auto h = ferry::detail::type_hash("N1aE", "FiiE");
  EXPECT_EQ(h, ferry::detail::type_hash("N1aE", "FiiE"));
  EXPECT_NE(h, ferry::detail::type_hash("N1aE", "FddE"));
  EXPECT_NE(h, ferry::detail::type_hash("N1bE", "FiiE"));
  EXPECT_NE(ferry::detail::type_hash("ab", "c"), ferry::detail::type_hash("a", "bc"));
}

TEST(Registry, EntriesOfOneStableNameAreFoundInEveryModuleAndForgottenAsTheyGo) {
  auto first = std::make_unique<registry_entry>(external_type, int_of_int, make_nothing,
                                                "tests.registry.scale.v1", nullptr);
  const registry_entry second(external_type, int_of_int, make_nothing, "tests.registry.scale.v1", nullptr);
  EXPECT_EQ(ferry::detail::find_named("tests.registry.scale.v1").size(), 2u);
  first.reset();
  const auto left = ferry::detail::find_named("tests.registry.scale.v1");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0], &second);
  EXPECT_TRUE(ferry::detail::find_named("tests.registry.other").empty());
}

TEST(Registry, APointerCallerIsFoundByItsSignatureOnly) {
  {
    // A signature no code of this program ships a pointer of.
    const registry_entry caller("PFN5tests4onlyEvE", "FN5tests4onlyEvE", make_nothing, nullptr, call_nothing);
    EXPECT_EQ(ferry::detail::find_pointer_caller("FN5tests4onlyEvE"), &caller);
    EXPECT_EQ(ferry::detail::find_pointer_caller("FN5tests4onlyEiE"), nullptr);
  }
  EXPECT_EQ(ferry::detail::find_pointer_caller("FN5tests4onlyEvE"), nullptr);
}

TEST(Registry, AUniqueTypeRegisteredByTwoModulesIsFoundInBoth) {
  const registry_entry here(external_type, int_of_int, make_nothing, nullptr, nullptr);
  EXPECT_TRUE(ferry::detail::find_same_type(here).empty()) << "alone: nothing to choose from";
  auto there = std::make_unique<registry_entry>(external_type, int_of_int, make_nothing, nullptr, nullptr);
  const auto both = ferry::detail::find_same_type(here);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_NE(std::find(both.begin(), both.end(), &here), both.end());
  EXPECT_NE(std::find(both.begin(), both.end(), there.get()), both.end());
  there.reset();
  EXPECT_TRUE(ferry::detail::find_same_type(here).empty());
}

TEST(Registry, ATypeOfAnotherSignatureIsNotTheSameType) {
  const registry_entry a(external_type, int_of_int, make_nothing, nullptr, nullptr);
  const registry_entry b(external_type, "FddE", make_nothing, nullptr, nullptr);
  EXPECT_TRUE(ferry::detail::find_same_type(a).empty());
}

TEST(Registry, LocalTypesOfOneNameInTwoModulesAreNeverTheSameType) {
  const registry_entry a(local_lambda, int_of_int, make_nothing, nullptr, nullptr);
  const registry_entry b(local_lambda, int_of_int, make_nothing, nullptr, nullptr);
  EXPECT_TRUE(ferry::detail::find_same_type(a).empty());
}

TEST(Registry, AnEntrysModuleIsThisProgramAndIsCachedInTheEntry) {
  // Static, as a module's entries are: its address lies in this program.
  static const registry_entry e("N5tests12in_a_programE", int_of_int, make_nothing, nullptr, nullptr);
  EXPECT_EQ(e.module.load(), nullptr);
  const ferry::detail::module_record& m = ferry::detail::module_of(e);
  EXPECT_TRUE(m.main_program);
  EXPECT_EQ(e.module.load(), &m);
  EXPECT_EQ(&ferry::detail::module_of(e), &m);
}

}  // namespace registry_cases
