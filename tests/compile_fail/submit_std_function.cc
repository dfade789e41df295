// Copyright ferry authors.
//
// Must not compile: a std::function hides the type of what it holds, which
// is how ferry finds the code; the error must say to pass the lambda
// itself or a ferry::function.
#include <functional>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  const std::function<int(int)> next = [](int x) { return x + 1; };
  return pool.submit(next, 1).get();
}
