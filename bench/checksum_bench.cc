// Copyright ferry authors.
//
// The frame checksum (src/serialize/frame/crc32c.h) on its own by each path:
// folded by carry-less multiplication on 512- and 256-bit registers, and the
// crc instruction's interleaved chains, at the size of row (c)'s payload
// (1000 doubles) and larger. A path the CPU lacks reports an error. Run:
//   build-bench/bench/checksum_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "serialize/frame/crc32c.h"

namespace {

using ferry::detail::crc_path;

template <crc_path path>
void run(benchmark::State& state) {
  if (!ferry::detail::cpu_has(path)) {
    state.SkipWithError("this CPU lacks the path's instructions");
    return;
  }
  std::vector<unsigned char> bytes(static_cast<std::size_t>(state.range(0)));
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 131 + 7);
  for (auto _ : state) {
    benchmark::DoNotOptimize(bytes.data());
    benchmark::DoNotOptimize(ferry::detail::crc32c_by(path, bytes.data(), bytes.size()));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

void folded_512(benchmark::State& state) { run<crc_path::folded_512>(state); }
void folded_256(benchmark::State& state) { run<crc_path::folded_256>(state); }
void crc_instruction(benchmark::State& state) { run<crc_path::crc_instruction>(state); }

}  // namespace

BENCHMARK(folded_512)->Arg(8 * 1024)->Arg(64 * 1024);
BENCHMARK(folded_256)->Arg(8 * 1024)->Arg(64 * 1024);
BENCHMARK(crc_instruction)->Arg(8 * 1024)->Arg(64 * 1024);
BENCHMARK_MAIN();
