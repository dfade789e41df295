// Copyright ferry authors.
//
// Must not compile: a map over two ranges, which zips them, with a function
// of one parameter; the error must say that fn takes one parameter per range.
#include <vector>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  const std::vector<int> a{1, 2, 3}, b{4, 5, 6};
  const ferry::function<int(int)> twice = [](int x) { return 2 * x; };
  pool.map(twice, a, b);
}
