// Copyright ferry authors.
//
// Must not compile: std::ref, which std::async passes as a reference, cannot
// share a variable with a task in another process; the error must say to
// pass the value and return what the task changes.
#include <functional>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  int count = 1;
  return pool.submit([](const int& c) { return c + 1; }, std::ref(count)).get();
}
