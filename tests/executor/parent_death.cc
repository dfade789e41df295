// Copyright ferry authors.
//
// Helper of parent_death_test.sh: starts a pool whose workers are busy in
// long tasks, prints their process ids, and waits to be killed.
//
//   parent_death spawn|fork|plugin
#include <unistd.h>

#include <iostream>
#include <thread>

#include <executor/executor.h>

#include "test_tasks.h"

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::pool_options options;
  options.max_workers = 2;
  options.start = ferry::start_method_from_string(argc > 1 ? argv[1] : "spawn");
  options.worker_program = FERRY_TEST_WORKER_PROGRAM;
  ferry::process_pool pool(options);
  auto a = pool.submit(test_tasks::sleep_ms(), 60'000);
  auto b = pool.submit(test_tasks::sleep_ms(), 60'000);
  while (pool.worker_pids().size() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the tasks are running
  for (int pid : pool.worker_pids()) std::cout << pid << " ";
  std::cout << std::endl;
  ::pause();
}
