// Copyright ferry authors.
//
// Maps that stream. docs/api/executor.md quotes the regions between
// "[snippet:NAME]" and "[end]"; the test suite runs this program and
// compares its output with streaming_map.expected.
#include <cstddef>
#include <iostream>
#include <ranges>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool({.max_workers = 2});

  {
    // [snippet:istream]
    // Any input range, read once: here numbers as a file would give them.
    // The map reads the input only as far ahead of this loop as
    // max_chunks_in_flight chunks allow, so an endless one is fine too.
    std::istringstream numbers("3 1 4 1 5 9 2 6");
    long total = 0;
    for (int square : pool.map_ordered([](int x) { return x * x; }, std::views::istream<int>(numbers),
                                       ferry::map_options{.chunksize = 2, .max_chunks_in_flight = 4}))
      total += square;
    std::cout << total << "\n";  // 173
    // [end]
  }

  {
    // [snippet:unordered]
    // Results as their chunks finish, each with its input's index.
    std::vector<std::string> words = {"ferry", "ships", "closures"};
    std::vector<std::size_t> lengths(words.size());
    for (auto [index, length] : pool.map_unordered([](const std::string& w) { return w.size(); }, words))
      lengths[index] = length;
    std::cout << lengths[0] << " " << lengths[1] << " " << lengths[2] << "\n";  // 5 5 8
    // [end]
  }

  {
    // [snippet:break]
    // Leaving the loop early cancels what the map has not sent yet.
    for (int n : pool.map_ordered([](int x) { return x + 1; }, std::views::iota(0))) {
      if (n == 3) {
        std::cout << "stopped at " << n << "\n";  // stopped at 3
        break;
      }
    }
    // [end]
  }
  return 0;
}
