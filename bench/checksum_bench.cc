// Copyright ferry authors.
//
// The frame checksum (src/serialize/frame/crc32c.h) on its own, folded by
// carry-less multiplication against the crc instruction's interleaved
// chains, at the size of row (c)'s payload (1000 doubles) and larger. Run:
//   build-bench/bench/checksum_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "serialize/frame/crc32c.h"

namespace {

template <std::uint32_t (*checksum)(const void*, std::size_t)>
void run(benchmark::State& state) {
  std::vector<unsigned char> bytes(static_cast<std::size_t>(state.range(0)));
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 131 + 7);
  for (auto _ : state) {
    benchmark::DoNotOptimize(bytes.data());
    benchmark::DoNotOptimize(checksum(bytes.data(), bytes.size()));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

void folded(benchmark::State& state) { run<ferry::detail::crc32c>(state); }
void unfolded(benchmark::State& state) { run<ferry::detail::crc32c_unfolded>(state); }

}  // namespace

BENCHMARK(folded)->Arg(8 * 1024)->Arg(64 * 1024);
BENCHMARK(unfolded)->Arg(8 * 1024)->Arg(64 * 1024);
BENCHMARK_MAIN();
