// Copyright ferry authors.
//
// Must not compile: a task taking a pointer, which would point into the
// caller's memory in another process; the error must be ferry's, naming
// the pointer, not cereal's about raw pointers.
#include <executor/executor.h>

int counter = 0;

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto read = pool.submit([](const int* p) { return *p; }, &counter);
  return read.get();
}
