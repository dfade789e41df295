// Copyright ferry authors.
//
// The operations whose instruction counts tests/perf/check_counts.py keeps
// from growing: each runs `iterations` times inside a function named
// ferry_counted_*, which callgrind alone counts (--collect-atstart=no
// --toggle-collect=ferry_counted_*), so start-up, warm-up and waiting are
// left out. Counts repeat from run to run of one binary (exactly for
// serialization, submit_get's within 15%: below), where a clock would not
// (docs/performance.md, "Loads of small closures, and instruction counts").
//   instruction_counts OPERATION ITERATIONS
// OPERATION: dumps_a loads_a cereal_loads_a dumps_b loads_b cereal_loads_b
// submit_get. (a) is a capture-less lambda, (b) a closure of an int, a
// double and a 16-character string: the rows of bench/serialize_bench.cc.
#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include <executor/process_pool.h>
#include <executor/worker.h>
#include <serialize/serialize.h>

#include "../../bench/serialize_rows.h"

namespace {

using serialize_rows::cereal_dump;
using serialize_rows::closure_b;
using serialize_rows::sixteen;
ferry::function<int(int)> lambda_a() { return serialize_rows::lambda(); }

// Keeps the optimizer from dropping a result.
template <class T>
void keep(T const& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

template <class F>
[[gnu::noinline]] void ferry_counted_dumps(const F& f, int n) {
  for (int i = 0; i < n; ++i) keep(ferry::dumps(f));
}

template <class F>
[[gnu::noinline]] void ferry_counted_loads(const std::string& bytes, int n) {
  for (int i = 0; i < n; ++i) keep(ferry::loads<F>(bytes));
}

[[gnu::noinline]] void ferry_counted_cereal_loads_a(const std::string& bytes, int n) {
  for (int i = 0; i < n; ++i) {
    std::istringstream in(bytes);
    cereal::BinaryInputArchive ar(in);
    keep(ar);
  }
}

[[gnu::noinline]] void ferry_counted_cereal_loads_b(const std::string& bytes, int n) {
  for (int i = 0; i < n; ++i) {
    int a;
    double d;
    std::string s;
    std::istringstream in(bytes);
    cereal::BinaryInputArchive ar(in);
    ar(a, d, s);
    keep(s);
  }
}

[[gnu::noinline]] ferry::future<int> ferry_counted_submit(ferry::process_pool& pool, int x) {
  return pool.submit(lambda_a(), x);
}

[[gnu::noinline]] int ferry_counted_get(ferry::future<int>& f) { return f.get(); }

// The caller's side of submit->get, one task at a time: the submit and the
// get of a finished future. The wait between them is not counted, as how
// long it spins depends on the scheduler. The submit to an idle pool sends
// the task itself and polls once: it reads the result too when the worker
// was quick enough, so its count varies within about 15% from run to run
// (docs/performance.md, "Loads of small closures, and instruction counts").
void submit_get(int n) {
  ferry::pool_options options;
  options.max_workers = 1;
  ferry::process_pool pool(options);
  int sum = 0;
  for (int i = 0; i < 20; ++i) sum += pool.submit(lambda_a(), i).get();  // warm: worker up, modules known
  for (int i = 0; i < n; ++i) {
    auto f = ferry_counted_submit(pool, i);
    f.wait();
    sum += ferry_counted_get(f);
  }
  keep(sum);
}

}  // namespace

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " OPERATION ITERATIONS\n";
    return 2;
  }
  const std::string op = argv[1];
  const int n = std::stoi(argv[2]);
  using fa = ferry::function<int(int)>;
  using fb = ferry::function<double(double)>;
  const fa a = lambda_a();
  const fb b = closure_b();
  const std::string bytes_a = ferry::dumps(a), bytes_b = ferry::dumps(b);
  keep(ferry::loads<fa>(bytes_a));  // first loads: the registry's lazy set-up
  keep(ferry::loads<fb>(bytes_b));
  if (op == "dumps_a") ferry_counted_dumps(a, n);
  else if (op == "loads_a") ferry_counted_loads<fa>(bytes_a, n);
  else if (op == "cereal_loads_a") ferry_counted_cereal_loads_a(cereal_dump(), n);
  else if (op == "dumps_b") ferry_counted_dumps(b, n);
  else if (op == "loads_b") ferry_counted_loads<fb>(bytes_b, n);
  else if (op == "cereal_loads_b") ferry_counted_cereal_loads_b(cereal_dump(7, 2.5, sixteen), n);
  else if (op == "submit_get") submit_get(n);
  else {
    std::cerr << "unknown operation " << op << "\n";
    return 2;
  }
  std::cout << "ok\n";
  return 0;
}
