// Copyright ferry authors. Internal: the progress bar a map draws on its
// caller's terminal (map_options::progress), one line rewritten in place:
//
//   ferry map  45% [#########...........] 450/1000  1.2k/s  0:03 elapsed  0:04 left
//
// Thread-safety: none; the thread iterating the map alone draws.
#ifndef FERRY_SRC_EXECUTOR_OBSERVE_PROGRESS_LINE_H_
#define FERRY_SRC_EXECUTOR_OBSERVE_PROGRESS_LINE_H_

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace ferry::detail {

// The line for `done` of `total` inputs (unknown: a count and a rate, no
// bar) after `elapsed`; the estimate of what is left is the elapsed time
// scaled by what remains, once anything is done.
std::string format_progress(std::size_t done, std::optional<std::size_t> total,
                            std::chrono::steady_clock::duration elapsed);

class progress_line {
 public:
  using clock = std::chrono::steady_clock;
  // Draws on `fd` only if it is a terminal; otherwise does nothing.
  progress_line(int fd, std::optional<std::size_t> total);
  // Redraws, at most every 100 ms unless `last` (which ends the line).
  void update(std::size_t done, bool last = false);
  bool drawing() const { return fd_ >= 0; }

 private:
  int fd_;
  std::optional<std::size_t> total_;
  clock::time_point start_ = clock::now();
  clock::time_point drawn_{};
  bool ended_ = false;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_OBSERVE_PROGRESS_LINE_H_
