// Copyright ferry authors.
//
// A program that forgets ferry::serve_if_worker. With start_method::spawn,
// its workers must stop before main (no second "main ran" line, no fork
// bomb) and the pool must report ferry::worker_start_error.
#include <iostream>

#include <executor/executor.h>

int main() {
  std::cout << "main ran" << std::endl;
  ferry::process_pool pool({.max_workers = 2, .start = ferry::start_method::spawn});
  try {
    pool.submit([](int x) { return x; }, 1).get();
    std::cout << "the task ran, which it must not" << std::endl;
    return 1;
  } catch (const ferry::worker_start_error& e) {
    std::cout << "worker_start_error: " << e.what() << std::endl;
    return 0;
  }
}
