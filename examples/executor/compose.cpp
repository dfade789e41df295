// Copyright ferry authors.
//
// Futures that compose. docs/api/executor.md quotes the regions between
// "[snippet:NAME]" and "[end]"; the test suite runs this program and
// compares its output with compose.expected.
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <executor/executor.h>

// [snippet:coroutine]
// A coroutine returning ferry::future: co_await suspends it without
// blocking a thread; co_return sets its future.
ferry::future<int> sum_of_squares(ferry::process_pool& pool, int a, int b) {
  auto square = [](int x) { return x * x; };
  const int x = co_await pool.submit(square, a);
  const int y = co_await pool.submit(square, b);
  co_return x + y;
}
// [end]

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool({.max_workers = 2});

  {
    // [snippet:then]
    ferry::future<std::string> text = pool.submit([](int x) { return x * 2; }, 21).then(
        [](const ferry::future<int>& f) { return "the answer is " + std::to_string(f.get()); });
    std::cout << text.get() << "\n";  // the answer is 42
    // [end]
  }

  {
    // [snippet:when_all]
    std::vector<ferry::future<int>> parts;
    for (int i = 1; i <= 4; ++i) parts.push_back(pool.submit([](int x) { return x * 10; }, i));
    ferry::future<int> total = ferry::when_all(parts).then([](const auto& all) {
      int sum = 0;
      for (const ferry::future<int>& part : all.get()) sum += part.get();
      return sum;
    });
    std::cout << total.get() << "\n";  // 100
    // [end]
  }

  {
    // [snippet:first_exception]
    std::vector<ferry::future<int>> checks;
    for (int i = 0; i < 4; ++i)
      checks.push_back(pool.submit([](int x) {
        if (x == 2) throw std::invalid_argument("input 2 is bad");
        return x;
      }, i));
    const std::size_t failed = ferry::wait_all_or_first_exception(checks);
    if (failed < checks.size()) {
      try {
        checks[failed].get();
      } catch (const std::invalid_argument& e) {
        std::cout << "check " << failed << ": " << e.what() << "\n";  // check 2: input 2 is bad
      }
    }
    // [end]
  }

  std::cout << sum_of_squares(pool, 3, 4).get() << "\n";  // 25
}
