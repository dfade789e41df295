// Copyright ferry authors.
//
// Lambdas in functions with internal linkage in two files share a mangled
// type name; a name-keyed registry would run the wrong one. ferry keys by
// the registration object's offset, so each runs its own code.
#include <gtest/gtest.h>

#include <serialize/serialize.h>

#include "test_util.h"

namespace {
auto make_lambda() {
  return [](int x) { return x + 2000; };
}
}  // namespace

ferry::function<int(int)> other_file_function() { return make_lambda(); }
const char* other_file_type_name() { return typeid(make_lambda()).name(); }
