// Copyright ferry authors.
//
// Must NOT compile: a lambda capturing a std::string directly is not
// shippable. The static_assert must point to ferry::closure.
#include <string>

#include <serialize/serialize.h>

int main() {
  std::string s = "not shippable as a capture";
  ferry::function<std::string()> f = [s] { return s; };
  return f ? 0 : 1;
}
