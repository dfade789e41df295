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

// Where a bar may be drawn on `fd`: a terminal; or, in a rank of an MPI
// job (mpirun's, srun's, hydra's environment), the pipe or socket through
// which the launcher relays the rank's stderr to the terminal or log it was
// started with, since a rank's stderr is never a terminal there; else
// nowhere, so that logs and pipes stay clean.
enum class progress_target { none, terminal, launcher };
progress_target progress_target_of(int fd);

class progress_line {
 public:
  using clock = std::chrono::steady_clock;
  // Draws on `fd` only where progress_target_of says; otherwise does nothing.
  progress_line(int fd, std::optional<std::size_t> total);
  // Redraws, at most every 100 ms on a terminal and every second through a
  // launcher (which may be writing a log), unless `last` (which ends the line).
  void update(std::size_t done, bool last = false);
  bool drawing() const { return fd_ >= 0; }

 private:
  int fd_;
  clock::duration every_{};  // between two draws
  std::optional<std::size_t> total_;
  clock::time_point start_ = clock::now();
  clock::time_point drawn_{};
  bool ended_ = false;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_OBSERVE_PROGRESS_LINE_H_
