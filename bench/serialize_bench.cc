// Copyright ferry authors.
//
// ferry::dumps / ferry::loads of closures against raw cereal binary
// serialization of the same values (cereal::BinaryOutputArchive into a
// std::ostringstream, cereal's usual way): the overhead of being a closure.
// Run through scripts/bench.sh, which prints the comparison table.
#include <benchmark/benchmark.h>

#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <serialize/serialize.h>

#include "serialize_rows.h"

namespace {

using serialize_rows::cereal_dump;
using serialize_rows::closure_b;
using serialize_rows::lambda;
using serialize_rows::sixteen;

template <class... T>
void cereal_load(const std::string& bytes, T&... values) {
  std::istringstream in(bytes);
  cereal::BinaryInputArchive ar(in);
  if constexpr (sizeof...(T) > 0) ar(values...);
}

// (c) a local aggregate with a vector of 1000 doubles.
ferry::function<double()> aggregate_c() {
  struct sum {
    std::string name;
    std::vector<double> values;
    double operator()() const {
      double s = 0;
      for (double v : values) s += v;
      return s;
    }
  };
  return sum{"sum", std::vector<double>(1000, 0.5)};
}

// (d) a 64 MiB std::string argument, bound with ferry::closure.
const std::string& big() {
  static const std::string s(64u << 20, 'x');
  return s;
}
ferry::function<std::size_t()> closure_d() {
  return ferry::closure([](const std::string& s) { return s.size(); }, big());
}

template <class F>
void ferry_dumps(benchmark::State& state, F make) {
  const auto f = make();
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string out = ferry::dumps(f);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}

template <class F>
void ferry_loads(benchmark::State& state, F make) {
  using fn = decltype(make());
  const std::string bytes = ferry::dumps(make());
  for (auto _ : state) {
    fn f = ferry::loads<fn>(bytes);
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes.size()) * state.iterations());
}

void a_ferry_dumps(benchmark::State& s) { ferry_dumps(s, lambda); }
void a_ferry_loads(benchmark::State& s) { ferry_loads(s, lambda); }
void a_cereal_dumps(benchmark::State& state) {
  for (auto _ : state) {
    std::string out = cereal_dump();
    benchmark::DoNotOptimize(out.data());
  }
}
void a_cereal_loads(benchmark::State& state) {
  const std::string bytes = cereal_dump();
  for (auto _ : state) {
    cereal_load(bytes);
    benchmark::ClobberMemory();
  }
}

void b_ferry_dumps(benchmark::State& s) { ferry_dumps(s, closure_b); }
void b_ferry_loads(benchmark::State& s) { ferry_loads(s, closure_b); }
void b_cereal_dumps(benchmark::State& state) {
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string out = cereal_dump(7, 2.5, sixteen);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}
void b_cereal_loads(benchmark::State& state) {
  const std::string bytes = cereal_dump(7, 2.5, sixteen);
  for (auto _ : state) {
    int i;
    double d;
    std::string s;
    cereal_load(bytes, i, d, s);
    benchmark::DoNotOptimize(s.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes.size()) * state.iterations());
}

const std::vector<double> thousand(1000, 0.5);
void c_ferry_dumps(benchmark::State& s) { ferry_dumps(s, aggregate_c); }
void c_ferry_loads(benchmark::State& s) { ferry_loads(s, aggregate_c); }
void c_cereal_dumps(benchmark::State& state) {
  const std::string name = "sum";
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string out = cereal_dump(name, thousand);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}
void c_cereal_loads(benchmark::State& state) {
  const std::string bytes = cereal_dump(std::string("sum"), thousand);
  for (auto _ : state) {
    std::string name;
    std::vector<double> v;
    cereal_load(bytes, name, v);
    benchmark::DoNotOptimize(v.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes.size()) * state.iterations());
}

void d_ferry_dumps(benchmark::State& s) { ferry_dumps(s, closure_d); }
void d_ferry_loads(benchmark::State& s) { ferry_loads(s, closure_d); }
void d_cereal_dumps(benchmark::State& state) {
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string out = cereal_dump(big());
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}
void d_cereal_loads(benchmark::State& state) {
  const std::string bytes = cereal_dump(big());
  for (auto _ : state) {
    std::string s;
    cereal_load(bytes, s);
    benchmark::DoNotOptimize(s.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes.size()) * state.iterations());
}

}  // namespace

BENCHMARK(a_ferry_dumps);
BENCHMARK(a_cereal_dumps);
BENCHMARK(a_ferry_loads);
BENCHMARK(a_cereal_loads);
BENCHMARK(b_ferry_dumps);
BENCHMARK(b_cereal_dumps);
BENCHMARK(b_ferry_loads);
BENCHMARK(b_cereal_loads);
BENCHMARK(c_ferry_dumps);
BENCHMARK(c_cereal_dumps);
BENCHMARK(c_ferry_loads);
BENCHMARK(c_cereal_loads);
BENCHMARK(d_ferry_dumps)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(d_cereal_dumps)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(d_ferry_loads)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(d_cereal_loads)->Unit(benchmark::kMillisecond)->MinTime(1.0);

BENCHMARK_MAIN();
