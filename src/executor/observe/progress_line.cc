// Copyright ferry authors.
#include "executor/observe/progress_line.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace ferry::detail {

namespace {

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char out[32];
  if (s >= 3600)
    std::snprintf(out, sizeof out, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(out, sizeof out, "%ld:%02ld", s / 60, s % 60);
  return out;
}

std::string rate_text(double per_second) {
  char out[32];
  if (per_second >= 1e6)
    std::snprintf(out, sizeof out, "%.1fM/s", per_second / 1e6);
  else if (per_second >= 1e3)
    std::snprintf(out, sizeof out, "%.1fk/s", per_second / 1e3);
  else
    std::snprintf(out, sizeof out, "%.1f/s", per_second);
  return out;
}

// Writes it all unless the terminal fails; a map never fails for its bar.
void write_all(int fd, const std::string& s) {
  std::size_t at = 0;
  while (at < s.size()) {
    const ssize_t n = ::write(fd, s.data() + at, s.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    at += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string format_progress(std::size_t done, std::optional<std::size_t> total,
                            std::chrono::steady_clock::duration elapsed) {
  constexpr std::size_t width = 20;
  const double seconds = std::chrono::duration<double>(elapsed).count();
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
  std::string line = "ferry map ";
  char buf[64];
  if (total) {
    const std::size_t of = *total;
    const double part = of == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(of);
    std::snprintf(buf, sizeof buf, "%3d%% [", static_cast<int>(part * 100));
    line += buf;
    const auto filled = static_cast<std::size_t>(part * width);
    line += std::string(filled, '#') + std::string(width - filled, '.') + "] ";
    line += std::to_string(done) + "/" + std::to_string(of);
  } else {
    line += std::to_string(done);
  }
  line += "  " + rate_text(rate) + "  " + clock_text(seconds) + " elapsed";
  if (total && done > 0 && done < *total)
    line += "  " + clock_text(seconds * static_cast<double>(*total - done) / static_cast<double>(done)) + " left";
  return line;
}

progress_target progress_target_of(int fd) {
  if (::isatty(fd) == 1) return progress_target::terminal;
  // OpenMPI's mpirun, PMIx (OpenMPI's and Slurm's srun --mpi=pmix), and the
  // PMI of MPICH's hydra and of srun name the rank in the environment.
  const bool a_rank = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
                      std::getenv("PMI_RANK") != nullptr;
  struct stat st {};
  if (a_rank && ::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
    return progress_target::launcher;
  return progress_target::none;
}

progress_line::progress_line(int fd, std::optional<std::size_t> total) : total_(total) {
  const progress_target where = progress_target_of(fd);
  fd_ = where == progress_target::none ? -1 : fd;
  every_ = where == progress_target::launcher ? clock::duration(std::chrono::seconds(1))
                                              : clock::duration(std::chrono::milliseconds(100));
}

void progress_line::update(std::size_t done, bool last) {
  if (fd_ < 0 || ended_) return;
  const clock::time_point now = clock::now();
  if (!last && now - drawn_ < every_) return;
  drawn_ = now;
  // \r and erase to the end of the line: the line shrinks as the estimate does.
  // Appended, not "\r" + a temporary: g++ 12 at -O3 warns falsely of an
  // overlapping memcpy (-Wrestrict) in that operator+.
  std::string line = "\r";
  line += format_progress(done, total_, now - start_);
  line += "\x1b[K";
  if (last) line += '\n';
  write_all(fd_, line);
  ended_ = last;
}

}  // namespace ferry::detail
