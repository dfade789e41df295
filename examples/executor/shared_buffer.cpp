// Copyright ferry authors.
//
// ferry::shared_buffer: large data to a task and back without copying.
// docs/api/shared_buffer.md quotes the regions between "[snippet:NAME]" and
// "[end]"; the test suite runs this program and compares its output with
// shared_buffer.expected.
#include <cstdint>
#include <iostream>
#include <numeric>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool({.max_workers = 2});

  {
    // [snippet:in_place]
    // 64 MiB of doubles, written by the caller and doubled by a task in place.
    ferry::shared_buffer samples(std::size_t{64} << 20);
    std::span<double> x = samples.as<double>();
    std::iota(x.begin(), x.end(), 0.0);
    auto doubled = pool.submit([](ferry::shared_buffer b) {
      for (double& v : b.as<double>()) v *= 2;
    }, samples);
    doubled.get();
    std::cout << static_cast<long>(x[3]) << " " << static_cast<long>(x.back()) << "\n";  // 6 16777214
    // [end]
  }

  {
    // [snippet:result]
    // A task's result in a buffer it made: the caller maps the same pages.
    auto histogram = pool.submit([](std::uint32_t bins) {
      ferry::shared_buffer counts(bins * sizeof(std::uint64_t));
      for (std::uint64_t& c : counts.as<std::uint64_t>()) c = 7;
      return counts;
    }, std::uint32_t{1000});
    const ferry::shared_buffer counts = histogram.get();
    std::span<const std::uint64_t> c = counts.as<std::uint64_t>();
    std::cout << c.size() << " bins, " << std::accumulate(c.begin(), c.end(), std::uint64_t{0}) << " in all\n";
    // [end]
  }
}
