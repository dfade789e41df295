// Copyright ferry authors.
//
// Readable names (src/serialize/code/demangle.h): what identity.cc compares a
// function symbol's parameters by, and what error messages show.
#include "serialize/code/demangle.h"

#include <gtest/gtest.h>

#include <typeinfo>

using ferry::detail::demangle;

TEST(Demangle, AMangledSymbolGivesItsQualifiedNameAndParameters) {
  bool ok = false;
  EXPECT_EQ(demangle("_ZN3foo3barEid", &ok), "foo::bar(int, double)");
  EXPECT_TRUE(ok);
}

TEST(Demangle, ATypesNameGivesTheType) {
  EXPECT_EQ(demangle(typeid(int(int)).name()), "int (int)");
  EXPECT_EQ(demangle(typeid(double*).name()), "double*");
}

TEST(Demangle, ANameThatIsNotMangledComesBackAsItIsAndSaysSo) {
  bool ok = true;
  EXPECT_EQ(demangle("ferry_c_function", &ok), "ferry_c_function");
  EXPECT_FALSE(ok);
  EXPECT_EQ(demangle("_Z", &ok), "_Z");  // cut short
  EXPECT_FALSE(ok);
  EXPECT_EQ(demangle(""), "");
}
