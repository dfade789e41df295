// Copyright ferry authors.
//
// A pool with pool_options::trace, for tests/executor/timeline_test.py:
// twelve tasks on two workers (ten that sleep, one of them named; one that
// throws and one whose worker dies, each after 15 ms, so that their bars
// show), then shutdown, which writes the trace and its page.
//   timeline TRACE.json
#include <chrono>
#include <csignal>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " TRACE.json\n";
    return 2;
  }
  ferry::pool_options options;
  options.max_workers = 2;
  options.trace = argv[1];
  ferry::process_pool pool(options);
  auto nap = [](int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return ms;
  };
  std::vector<ferry::future<int>> naps;
  for (int i = 0; i < 10; ++i) {
    if (i == 4)
      naps.push_back(pool.submit({.name = "the long one"}, nap, 120));
    else
      naps.push_back(pool.submit(nap, 20 + 10 * (i % 3)));
  }
  auto throws = pool.submit([](int ms) -> int {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    throw std::runtime_error("bad input");
  }, 15);
  auto dies = pool.submit([](int ms) -> int {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    std::raise(SIGSEGV);
    return 0;
  }, 15);
  int sum = 0;
  for (auto& f : naps) sum += f.get();
  try {
    throws.get();
  } catch (const std::runtime_error&) {
  }
  try {
    dies.get();
  } catch (const ferry::worker_died_error&) {
  }
  pool.shutdown();
  std::cout << sum << "\n";
  return 0;
}
