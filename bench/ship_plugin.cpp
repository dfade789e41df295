// Copyright ferry authors.
//
// The module that bench/mpi_bench.cc's `ship` mode sends to an agent
// (mpi_pool_options::ship_modules): a plugin the program loads at run time,
// made 8 MiB large by read-only data its closure reads, so that the time to
// ship it is mostly the time to move its bytes.
#include <string>

#include <serialize/serialize.h>

extern "C" {
__attribute__((visibility("default"))) extern const unsigned char ferry_bench_ballast[8 << 20];
const unsigned char ferry_bench_ballast[8 << 20] = {1};

__attribute__((visibility("default"))) std::string* ferry_bench_make() {
  ferry::function<int(int)> f = [](int x) { return x + ferry_bench_ballast[static_cast<unsigned>(x) % sizeof ferry_bench_ballast]; };
  return new std::string(ferry::dumps(f));
}
}
