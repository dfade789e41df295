// Copyright ferry authors.
//
// future::cancel(grace) and ferry::this_task: stopping a task that is
// already running. docs/api/executor.md quotes the regions between
// "[snippet:NAME]" and "[end]"; the test suite runs this program and
// compares its output with cancel.expected.
#include <chrono>
#include <iostream>
#include <thread>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  using namespace std::chrono_literals;
  ferry::process_pool pool({.max_workers = 2});

  // [snippet:cooperative]
  // A task that looks: it stops when asked, and its result is kept.
  auto search = pool.submit([] {
    long tried = 0;
    while (!ferry::this_task::stop_requested()) ++tried;
    return tried > 0;
  });
  std::this_thread::sleep_for(100ms);
  search.cancel(5s);                  // ask; kill its worker if not done in 5 s
  std::cout << search.get() << "\n";  // 1
  // [end]

  // [snippet:forced]
  // A task that never looks is stopped with its worker after the grace.
  auto stuck = pool.submit([] { std::this_thread::sleep_for(1h); });
  std::this_thread::sleep_for(100ms);
  stuck.cancel(200ms);
  try {
    stuck.get();
  } catch (const ferry::cancelled_error& e) {
    std::cout << "cancelled while running\n";  // cancelled while running
  }
  // [end]
}
