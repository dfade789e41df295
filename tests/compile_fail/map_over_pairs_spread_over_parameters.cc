// Copyright ferry authors.
//
// Must NOT compile: a function of two ints mapped over pairs, as Python's
// starmap would; the message must say that each input is one argument and
// how to zip or unpack instead.
#include <executor/executor.h>

#include <utility>
#include <vector>

int add(int a, int b) { return a + b; }

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  const std::vector<std::pair<int, int>> pairs{{1, 2}, {3, 4}};
  return static_cast<int>(pool.map(add, pairs).size());
}
