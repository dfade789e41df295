// Copyright ferry authors.
//
// Must NOT compile: a ferry::closure capture that cereal cannot serialize
// (a std::span, which views the sender's memory). The message must say
// which capture and what to do. (A std::string_view capture is kept as
// the std::string of its text, and compiles.)
#include <span>
#include <vector>

#include <serialize/serialize.h>

int main() {
  static const std::vector<int> values{1, 2, 3};
  ferry::function<int(int)> f = ferry::closure(
      [](int base, std::span<const int> v, int x) { return base + static_cast<int>(v.size()) + x; }, 1,
      std::span<const int>(values));
  return f ? 0 : 1;
}
