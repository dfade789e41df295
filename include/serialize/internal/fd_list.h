// Copyright ferry authors. Internal: descriptors that travel beside a
// payload's bytes.
#ifndef FERRY_SERIALIZE_INTERNAL_FD_LIST_H_
#define FERRY_SERIALIZE_INTERNAL_FD_LIST_H_

#include <cstddef>
#include <span>
#include <vector>

#include "serialize/internal/config.h"

namespace ferry::detail {

// Open descriptors owned together, in the order a payload names them: the
// shared memory of the ferry::shared_buffer values a pool's message passes
// (docs/api/wire_format.md, "Shared buffers"). Closes them when destroyed.
// Thread-safety: none; one owner at a time.
class FERRY_SERIALIZE_EXPORT fd_list {
 public:
  fd_list() = default;
  ~fd_list();
  fd_list(fd_list&& other) noexcept;
  fd_list& operator=(fd_list&& other) noexcept;
  fd_list(const fd_list&) = delete;
  fd_list& operator=(const fd_list&) = delete;

  // Takes ownership of fd, closing it if it cannot be kept (bad_alloc).
  void push_back(int fd);
  // Closes them all.
  void clear() noexcept;
  std::span<const int> view() const noexcept { return fds_; }
  std::size_t size() const noexcept { return fds_.size(); }
  bool empty() const noexcept { return fds_.empty(); }

 private:
  std::vector<int> fds_;
};

}  // namespace ferry::detail

#endif  // FERRY_SERIALIZE_INTERNAL_FD_LIST_H_
