// Copyright ferry authors.
#include "local_function.h"

ferry::function<std::string()> make_local_function() {
  return [] { return std::string("ok"); };
}
