// Copyright ferry authors.
//
// Must NOT compile: an aggregate with a reference field would ship a
// reference to the sender's memory.
#include <serialize/serialize.h>

int main() {
  int value = 1;
  struct holder {
    int& r;
    int operator()() const { return r; }
  };
  ferry::function<int()> f = holder{value};
  return f ? 0 : 1;
}
