// Copyright ferry authors. Internal: a file descriptor owned by one object,
// closed when it is destroyed or reset, as std::unique_ptr owns memory, so
// that no error path can leak one (ferry's descriptors are many: sockets,
// pipes, pidfds, memfds, directories).
//
// Thread-safety: none; a descriptor has one owner at a time.
#ifndef FERRY_SRC_INTERNAL_UNIQUE_FD_H_
#define FERRY_SRC_INTERNAL_UNIQUE_FD_H_

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace ferry::detail {

class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& other) noexcept : fd_(other.release()) {}
  unique_fd& operator=(unique_fd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  // Gives the descriptor up: the caller owns it now.
  [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }
  // Closes the one held, if any (errno is kept: a close on an error path
  // must not hide the error being reported), and holds `fd`.
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) {
      const int saved = errno;
      ::close(fd_);
      errno = saved;
    }
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// The two ends of a pipe or socket pair, each owned.
struct fd_pair {
  unique_fd first, second;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_INTERNAL_UNIQUE_FD_H_
