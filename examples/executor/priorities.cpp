// Copyright ferry authors.
//
// task_options::priority: urgent work overtakes the queue. docs/api/executor.md
// quotes the regions between "[snippet:NAME]" and "[end]"; the test suite
// runs this program and compares its output with priorities.expected.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>
#include <vector>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);

  // [snippet:priorities]
  ferry::process_pool pool({.max_workers = 1});
  std::vector<ferry::future<int>> batch;
  for (int i = 0; i < 20; ++i) {
    batch.push_back(pool.submit([](int n) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return n;
    }, i));
  }
  auto urgent = pool.submit({.priority = 10}, [] { return 42; });
  std::cout << urgent.get() << "\n";  // 42
  // Done before it: the task running when it came, and at most the one
  // already sent to the worker behind it.
  const auto done = std::count_if(batch.begin(), batch.end(), [](auto& f) { return f.ready(); });
  std::cout << (done <= 2) << "\n";  // 1
  // [end]
}
