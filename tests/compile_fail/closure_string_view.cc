// Copyright ferry authors.
//
// Must NOT compile: a ferry::closure capture that cereal cannot serialize
// (std::string_view). The message must say which capture and what to do.
#include <string>
#include <string_view>

#include <serialize/serialize.h>

int main() {
  std::string_view name = "ferry";
  ferry::function<int(int)> f = ferry::closure(
      [](int base, std::string_view n, int x) { return base + static_cast<int>(n.size()) + x; }, 1, name);
  return f ? 0 : 1;
}
