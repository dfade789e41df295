// Copyright ferry authors.
//
// Choosing a start method by name (src/executor/front/start_method.cc):
// from a string, from FERRY_START_METHOD, and the error for a bad name.
#include <executor/start_method.h>
#include <serialize/error.h>

#include <stdlib.h>

#include <gtest/gtest.h>

#include <string>

TEST(StartMethod, FromString) {
  EXPECT_EQ(ferry::start_method_from_string("spawn"), ferry::start_method::spawn);
  EXPECT_EQ(ferry::start_method_from_string("fork"), ferry::start_method::fork);
  EXPECT_EQ(ferry::start_method_from_string("plugin"), ferry::start_method::plugin);
  EXPECT_EQ(ferry::start_method_from_string("in_process"), ferry::start_method::in_process);
  for (auto m : {ferry::start_method::spawn, ferry::start_method::fork, ferry::start_method::plugin,
                 ferry::start_method::in_process})
    EXPECT_EQ(ferry::start_method_from_string(ferry::to_string(m)), m);
}

TEST(StartMethod, BadNameIsAFerryErrorListingTheValidOnes) {
  try {
    (void)ferry::start_method_from_string("forkserver");
    FAIL();
  } catch (const ferry::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'forkserver'"), std::string::npos) << what;
    EXPECT_NE(what.find("spawn, fork, plugin and in_process"), std::string::npos) << what;
  }
}

TEST(StartMethod, FromEnvironment) {
  ::unsetenv("FERRY_START_METHOD");
  EXPECT_EQ(ferry::start_method_from_env(ferry::start_method::fork), ferry::start_method::fork);
  ::setenv("FERRY_START_METHOD", "plugin", 1);
  EXPECT_EQ(ferry::start_method_from_env(), ferry::start_method::plugin);
  ::setenv("FERRY_START_METHOD", "nope", 1);
  EXPECT_THROW(ferry::start_method_from_env(), ferry::error);
  ::unsetenv("FERRY_START_METHOD");
}
