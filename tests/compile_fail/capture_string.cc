// Copyright ferry authors.
//
// Must NOT compile: a lambda capturing a std::string directly is not
// shippable. The static_assert must point to ferry::closure. The region below
// is quoted in docs/api/serialize.md.
#include <string>

#include <serialize/serialize.h>

int main() {
  // [snippet:capture-string]
  std::string s = "not shippable as a capture";
  ferry::function<std::string()> f = [s] { return s; };
  // error: static assertion failed: ferry: this callable cannot be shipped: ...
  //        (2) ferry::closure(fn, captures...) to bind captures of any
  //        cereal-serializable type, e.g. a std::string: ...
  // [end]
  return f ? 0 : 1;
}
