// Copyright ferry authors.
//
// Must NOT compile: an aggregate with a raw pointer field would ship an
// address that means nothing in another process.
#include <serialize/serialize.h>

int main() {
  static int value = 1;
  struct holder {
    int* p;
    int operator()() const { return *p; }
  };
  ferry::function<int()> f = holder{&value};
  return f ? 0 : 1;
}
