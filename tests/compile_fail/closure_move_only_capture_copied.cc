// Copyright ferry authors.
//
// Must not compile: a closure capturing a std::unique_ptr cannot be
// copied, and passing it as an lvalue would copy it. The error must say to
// move it or make a ferry::function of it once, and be the only one (it was
// "use of deleted function", from inside std::tuple).
#include <executor/executor.h>

#include <memory>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto add_to = ferry::closure([](const std::unique_ptr<int>& p, int x) { return *p + x; }, std::make_unique<int>(40));
  return pool.submit(add_to, 2).get();
}
