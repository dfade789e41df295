// Copyright ferry authors.
//
// Tasks that submit tasks (ferry::this_task::pool()): a recursion of nested
// tasks on a pool of two workers. docs/api/executor.md quotes the regions
// between "[snippet:NAME]" and "[end]"; the test suite runs this program and
// compares its output with nested.expected.
#include <iostream>
#include <stdexcept>
#include <string>

#include <executor/executor.h>

// [snippet:fib]
// Each call a task of its own, which submits two more and waits for them.
long fib(int n) {
  if (n < 2) return n;
  ferry::nested_pool pool = ferry::this_task::pool();
  auto a = pool.submit(fib, n - 1);
  auto b = pool.submit(fib, n - 2);
  return a.get() + b.get();  // the worker runs other tasks meanwhile
}
// [end]

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);

  // [snippet:nested]
  ferry::process_pool pool({.max_workers = 2});
  std::cout << pool.submit(fib, 20).get() << "\n";  // 6765: 21 891 tasks, two workers

  // A nested task's failure is its parent's exception.
  auto parent = pool.submit([] {
    auto child = ferry::this_task::pool().submit([]() -> int { throw std::runtime_error("no input"); });
    try {
      return child.get();
    } catch (const std::runtime_error& e) {
      return static_cast<int>(std::string(e.what()).size());
    }
  });
  std::cout << parent.get() << "\n";  // 8
  // [end]
}
