// Copyright ferry authors.
//
// Must NOT compile: a task whose result has no default constructor cannot
// be read back by future::get; the message must say what to do.
#include <executor/executor.h>

struct handle {
  explicit handle(int v) : value(v) {}
  int value;
  template <class Archive>
  void serialize(Archive& ar) { ar(value); }
};

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto f = pool.submit([](int x) { return handle(x); }, 1);
  return f.get().value;
}
