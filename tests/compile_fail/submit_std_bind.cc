// Copyright ferry authors.
//
// Must not compile: the result of std::bind, whose bound values ferry
// cannot serialize; the error must name ferry::closure, which does this.
#include <functional>

#include <executor/executor.h>

int add(int a, int b) { return a + b; }

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  return pool.submit(std::bind(add, 1, std::placeholders::_1), 2).get();
}
