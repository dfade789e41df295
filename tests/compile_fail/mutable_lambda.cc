// Copyright ferry authors.
//
// Must NOT compile: a mutable lambda cannot be called through const, which
// is how ferry::function calls; the static_assert must say so.
#include <serialize/serialize.h>

int main() {
  ferry::function<int()> f = [n = 0]() mutable { return ++n; };
  return f ? 0 : 1;
}
