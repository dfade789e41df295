// Copyright ferry authors.
//
// start_method::in_process: debug a task where it is submitted.
// docs/api/executor.md quotes the regions between "[snippet:NAME]" and
// "[end]"; the test suite runs this program and compares its output with
// in_process.expected.
#include <unistd.h>

#include <iostream>
#include <stdexcept>
#include <string>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);

  // [snippet:in_process]
  ferry::process_pool pool({.max_workers = 1, .start = ferry::start_method::in_process});
  // The task runs on a thread of this process: a breakpoint set in it is
  // hit, and a sanitizer sees it.
  std::cout << (pool.submit([] { return ::getpid(); }).get() == ::getpid()) << "\n";  // 1
  // It was encoded, sent through a socket, decoded, and its result or
  // exception came back the same way, exactly as from a worker process.
  try {
    pool.submit([](const std::string& s) { return s.at(10); }, std::string("short")).get();
  } catch (const std::out_of_range& e) {
    std::cout << "out_of_range\n";  // out_of_range
  }
  // [end]
}
