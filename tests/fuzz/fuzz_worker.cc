// Copyright ferry authors.
//
// libFuzzer target: a worker's handling of a task message body (what
// run_task does with the bytes a pool sends). The first byte picks raw
// bytes, or patches to a valid task of this binary's own closure.
#include <cstdint>
#include <string>

#include <executor/executor.h>

#include "executor/worker/run_task.h"

namespace {

std::string valid_task() {
  std::string body;
  ferry::output_archive ar(body);
  const ferry::function<int(int, std::string)> fn = [](int x, std::string s) {
    return x + static_cast<int>(s.size());
  };
  const std::uint32_t count = 2;
  ar(fn, count, 1, std::string("a"), 2, std::string("bc"));
  return body;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string task = valid_task();
  if (size == 0) return 0;
  std::string body;
  if (data[0] % 2 == 0) {
    body.assign(reinterpret_cast<const char*>(data + 1), size - 1);
  } else {
    body = task;
    for (std::size_t i = 1; i + 1 < size; i += 2) body[data[i] % body.size()] = static_cast<char>(data[i + 1]);
  }
  const std::string result = ferry::detail::run_task(body);
  (void)result.size();
  return 0;
}
