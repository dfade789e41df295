// Copyright ferry authors.
//
// Must NOT compile: ferry::bitwise of a lambda that is not trivially
// copyable (it captures a std::string).
#include <string>

#include <serialize/serialize.h>

int main() {
  std::string s = "owned memory";
  ferry::function<std::string()> f = ferry::bitwise([s] { return s; });
  return f ? 0 : 1;
}
