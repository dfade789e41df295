// Copyright ferry authors. Internal: a worker's stdout or stderr, captured
// through a pipe (pool_options::worker_output), cut into whole lines.
//
// Thread-safety: none; the pool's manager alone uses it.
#ifndef FERRY_SRC_EXECUTOR_OBSERVE_OUTPUT_LINES_H_
#define FERRY_SRC_EXECUTOR_OBSERVE_OUTPUT_LINES_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ferry::detail {

class output_lines {
 public:
  // A line longer than this is handed out in pieces of this size, so that
  // a worker printing without newlines cannot grow the pool's memory.
  static constexpr std::size_t max_line = 64 * 1024;
  using sink = std::function<void(std::string_view line)>;  // without its '\n'

  // Hands out every line `bytes` completes; keeps the rest for later.
  void feed(std::string_view bytes, const sink& out);
  // Reads what `fd` (non-blocking) holds now and feeds it; returns false
  // once the pipe is closed at the other end (or failed).
  bool drain(int fd, const sink& out);
  // The last, unterminated line, if any: its writer is gone.
  void finish(const sink& out);

 private:
  std::string partial_;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_OBSERVE_OUTPUT_LINES_H_
