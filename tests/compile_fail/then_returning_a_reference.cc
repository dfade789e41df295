// Copyright ferry authors.
//
// Must not compile: a continuation's future holds what it returns, so a
// reference would outlive what it refers to; the error must say to return
// a value, and be the only one (it was followed by the standard library's
// "forming pointer to reference type", three times).
#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  static int last = 0;
  auto kept = pool.submit([] { return 2; }).then([](const ferry::future<int>& f) -> const int& {
    last = f.get();
    return last;
  });
  return kept.get();
}
