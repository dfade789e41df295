// Copyright ferry authors.
#include <serialize/internal/fd_list.h>

#include <unistd.h>

#include <utility>

namespace ferry::detail {

fd_list::~fd_list() { clear(); }

fd_list::fd_list(fd_list&& other) noexcept : fds_(std::exchange(other.fds_, {})) {}

fd_list& fd_list::operator=(fd_list&& other) noexcept {
  if (this != &other) {
    clear();
    fds_ = std::exchange(other.fds_, {});
  }
  return *this;
}

void fd_list::push_back(int fd) {
  try {
    fds_.push_back(fd);
  } catch (...) {
    ::close(fd);
    throw;
  }
}

void fd_list::clear() noexcept {
  for (int fd : fds_) ::close(fd);
  fds_.clear();
}

}  // namespace ferry::detail
