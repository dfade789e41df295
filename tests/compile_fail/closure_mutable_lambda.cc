// Copyright ferry authors.
//
// Must NOT compile: ferry::closure of a mutable lambda, the other route to
// the same misuse as bitwise_mutable_lambda.cc.
#include <serialize/serialize.h>

int main() {
  ferry::function<int()> f = ferry::closure([](int n) mutable { return n += 2; }, 1);
  return f ? 0 : 1;
}
