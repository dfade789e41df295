// Copyright ferry authors.
//
// Must not compile: map over two ranges at once, as Python's map(f, a, b)
// zips them; the error must say to pass one range of pairs or tuples.
#include <vector>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  const std::vector<int> a{1, 2, 3}, b{4, 5, 6};
  pool.map([](int x, int y) { return x + y; }, a, b);
}
