// Copyright ferry authors.
//
// Must NOT compile: submit with task_options is given a future as an
// argument (a dependent task), which only plain submit takes; the error
// must say to call .then() instead, not that the callable's parameters are
// wrong.
#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto a = pool.submit([](int x) { return x + 1; }, 1);
  auto b = pool.submit(ferry::task_options{.name = "doubled"}, [](int x) { return x * 2; }, a);
  return b.get();
}
