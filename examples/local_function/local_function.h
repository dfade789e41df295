// Copyright ferry authors.
#ifndef FERRY_EXAMPLES_LOCAL_FUNCTION_LOCAL_FUNCTION_H_
#define FERRY_EXAMPLES_LOCAL_FUNCTION_LOCAL_FUNCTION_H_

#include <string>

#include <serialize/function.h>

// Returns a closure made from a lambda defined inside this function, in a
// shared library: the "local object" that pickle-style tools cannot ship.
ferry::function<std::string()> make_local_function();

#endif  // FERRY_EXAMPLES_LOCAL_FUNCTION_LOCAL_FUNCTION_H_
