// Copyright ferry authors.
//
// Must NOT compile: a mutable lambda wrapped in ferry::bitwise is still a
// mutable lambda, which ferry cannot call through const; the static_assert
// must say so instead of a failed conversion.
#include <serialize/serialize.h>

int main() {
  ferry::function<int()> f = ferry::bitwise([n = 1]() mutable { return n += 2; });
  return f ? 0 : 1;
}
