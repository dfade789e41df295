// Copyright ferry authors.
//
// Must NOT compile: a task whose parameter is a non-const reference cannot
// bind the value the worker decodes; the first error must say to take T
// or const T&.
#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto f = pool.submit([](int& counter) { return ++counter; }, 1);
  return f.get();
}
