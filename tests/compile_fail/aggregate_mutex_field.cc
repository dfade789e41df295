// Copyright ferry authors.
//
// Must NOT compile: an aggregate with a std::mutex field cannot be copied,
// and the message must say so (not blame a reference or const field).
#include <mutex>

#include <serialize/serialize.h>

struct guarded {
  std::mutex lock;
  int value;
  int operator()(int x) const { return x + value; }
};

int main() {
  ferry::function<int(int)> f = guarded{{}, 1};
  return f ? 0 : 1;
}
