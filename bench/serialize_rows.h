// Copyright ferry authors.
//
// Rows (a) and (b) of docs/performance.md's serialization table, shared by
// bench/serialize_bench.cc (their time) and tests/perf/instruction_counts.cpp
// (their instruction counts), so that both measure the same values; and raw
// cereal's way of writing values, the comparison.
#ifndef FERRY_BENCH_SERIALIZE_ROWS_H_
#define FERRY_BENCH_SERIALIZE_ROWS_H_

#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>

#include <sstream>
#include <string>

#include <serialize/serialize.h>

namespace serialize_rows {
// Unnamed, as in a program's own file: callables of internal linkage are
// what the rows measure (one of external linkage is named, in every module
// that has it, by a shared record).
namespace {

// (a) a capture-less lambda: no state; raw cereal has nothing to write.
ferry::function<int(int)> lambda() {
  return [](int x) { return x + 1; };
}

// (b) a closure capturing an int, a double and a 16-character string.
const std::string sixteen = "0123456789abcdef";
ferry::function<double(double)> closure_b() {
  return ferry::closure([](int i, double d, const std::string& s, double x) { return i + d + s.size() + x; },
                        7, 2.5, sixteen);
}

// cereal's usual way: a BinaryOutputArchive into a std::ostringstream.
template <class... T>
std::string cereal_dump(const T&... values) {
  std::ostringstream out;
  {
    cereal::BinaryOutputArchive ar(out);
    if constexpr (sizeof...(T) > 0) ar(values...);
  }
  return std::move(out).str();
}

}  // namespace
}  // namespace serialize_rows

#endif  // FERRY_BENCH_SERIALIZE_ROWS_H_
