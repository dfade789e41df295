// Copyright ferry authors.
//
// Must NOT compile: submit is given a mutable lambda, which a worker would
// call through const; the first error must say so.
#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto f = pool.submit([n = 0](int x) mutable { return n += x; }, 1);
  return f.get();
}
