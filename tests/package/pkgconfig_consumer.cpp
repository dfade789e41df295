// Built with nothing but `pkg-config --cflags --libs ferry`.
#include <iostream>

#include <serialize/serialize.h>

int main() {
  ferry::function<int(int)> twice = [](int x) { return 2 * x; };
  std::cout << "pkg-config: " << ferry::loads<decltype(twice)>(ferry::dumps(twice))(21) << "\n";
}
