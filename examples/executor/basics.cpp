// Copyright ferry authors.
//
// The executor's basics. docs/api/executor.md quotes the regions between
// "[snippet:NAME]" and "[end]"; the test suite runs this program and
// compares its output with basics.expected.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <executor/executor.h>

// [snippet:main]
int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);  // first statement: workers serve here and never return

  ferry::process_pool pool({.max_workers = 2});
  // [end]

  {
    // [snippet:submit]
    ferry::future<int> sum = pool.submit([](int a, int b) { return a + b; }, 2, 3);
    std::cout << sum.get() << "\n";  // 5

    std::string name = "ferry";
    auto greeting = pool.submit(
        ferry::closure([](const std::string& n, int times) {
          std::string out;
          for (int i = 0; i < times; ++i) out += "hi " + n + "! ";
          return out;
        }, name),
        2);
    std::cout << greeting.get() << "\n";  // hi ferry! hi ferry!
    // [end]
  }

  {
    // [snippet:map]
    std::vector<int> inputs{1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<int> squares = pool.map([](int x) { return x * x; }, inputs, /*chunksize=*/4);
    for (int s : squares) std::cout << s << " ";  // 1 4 9 16 25 36 49 64
    std::cout << "\n";
    // [end]
  }

  {
    // [snippet:zip]
    std::vector<double> prices{2.5, 4.0, 1.25};
    std::vector<int> counts{4, 3, 8, 99};  // longer: the shortest range ends the map
    std::vector<double> totals = pool.map([](double p, int n) { return p * n; }, prices, counts);
    for (double t : totals) std::cout << t << " ";  // 10 12 10
    std::cout << "\n";
    // [end]
  }

  {
    // [snippet:errors]
    auto bad = pool.submit([](int x) -> int { throw std::out_of_range("x = " + std::to_string(x)); }, 7);
    try {
      bad.get();
    } catch (const std::out_of_range& e) {  // a standard exception keeps its type
      std::cout << "out_of_range: " << e.what() << "\n";  // out_of_range: x = 7
    }

    auto crash = pool.submit([] { return std::raise(SIGSEGV); });  // as a bad pointer would
    try {
      crash.get();
    } catch (const ferry::worker_died_error& e) {  // only this task fails
      std::cout << "died: " << e.cause() << "\n";  // died: was killed by signal 11 (SIGSEGV)
    }
    std::cout << pool.submit([] { return 1; }).get() << "\n";  // 1: the pool replaced the worker
    // [end]
  }

  {
    // [snippet:own_errors]
    // A type of the program's own arrives as itself once registered where
    // the results are read; a file system error keeps its code and path.
    struct config_error : std::runtime_error {
      using std::runtime_error::runtime_error;
    };
    ferry::register_exception<config_error>();
    try {
      pool.submit([]() -> int { throw config_error("no key 'port'"); }).get();
    } catch (const config_error& e) {
      std::cout << "config_error: " << e.what() << "\n";  // config_error: no key 'port'
    }
    try {
      pool.submit([] { return std::filesystem::file_size("/no/such/file"); }).get();
    } catch (const std::filesystem::filesystem_error& e) {
      std::cout << (e.code() == std::errc::no_such_file_or_directory) << " " << e.path1().string()
                << "\n";  // 1 /no/such/file
    }
    // [end]
  }

  {
    // [snippet:futures]
    std::vector<ferry::future<int>> futures;
    for (int ms : {500, 1}) {
      futures.push_back(pool.submit([](int wait_ms) {
        std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
        return wait_ms;
      }, ms));
    }
    for (const ferry::future<int>& f : ferry::as_completed(futures))
      std::cout << f.get() << " ";  // 1 500: the order they finish in
    std::cout << "\n";
    // [end]
  }

  {
    // [snippet:options]
    ferry::pool_options options;
    options.max_workers = 1;
    options.start = ferry::start_method::fork;
    options.env["GREETING"] = "bonjour";
    options.task_timeout = std::chrono::milliseconds(200);
    ferry::process_pool small(options);
    std::cout << small.submit([] { return std::string(std::getenv("GREETING")); }).get()
              << "\n";  // bonjour
    try {
      small.submit([] { for (;;) {} }).get();
    } catch (const ferry::task_timeout_error&) {
      std::cout << "timed out\n";  // timed out
    }
    small.shutdown();  // also what the destructor does
    // [end]
  }
  return 0;
}
