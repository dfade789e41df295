// Copyright ferry authors.
//
// Must not compile: then(fn) calls fn with the finished future, as
// Boost.Thread's then does, not with its value; the error must say so.
#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto tenfold = pool.submit([] { return 2; }).then([](int x) { return x * 10; });
  return tenfold.get();
}
