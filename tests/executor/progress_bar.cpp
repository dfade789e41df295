// Copyright ferry authors.
//
// A map with map_options::progress, for tests/executor/progress_bar_test.py,
// which runs it with stderr on a pseudo-terminal and on a pipe. Prints the
// sum of the results on stdout.
//   progress_bar ordered|unordered|endless
#include <chrono>
#include <iostream>
#include <ranges>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "ordered";
  ferry::process_pool pool({.max_workers = 2});
  auto slow_square = [](int x) {
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
    return x * x;
  };
  const ferry::map_options options{.chunksize = 1, .progress = true};
  long sum = 0;
  if (mode == "ordered") {
    std::vector<int> inputs(300);
    for (int i = 0; i < 300; ++i) inputs[i] = i;
    for (int r : pool.map_ordered(slow_square, inputs, options)) sum += r;
  } else if (mode == "unordered") {
    std::vector<int> inputs(300);
    for (int i = 0; i < 300; ++i) inputs[i] = i;
    for (const auto& r : pool.map_unordered(slow_square, inputs, options)) sum += r.value;
  } else {
    // Unknown size, left early.
    for (int r : pool.map_ordered(slow_square, std::views::iota(0), options)) {
      if (r >= 299 * 299) break;
      sum += r;
    }
  }
  std::cout << sum << "\n";
  return 0;
}
