// Copyright ferry authors.
#include "executor/observe/output_lines.h"

#include <unistd.h>

#include <cerrno>

namespace ferry::detail {

void output_lines::feed(std::string_view bytes, const sink& out) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    const std::size_t take = newline == std::string_view::npos ? bytes.size() : newline;
    const std::size_t room = max_line - partial_.size();
    if (take >= room) {  // a line too long: its first max_line bytes go now
      partial_.append(bytes.substr(0, room));
      out(partial_);
      partial_.clear();
      bytes.remove_prefix(room);
      continue;
    }
    partial_.append(bytes.substr(0, take));
    if (newline == std::string_view::npos) return;
    out(partial_);
    partial_.clear();
    bytes.remove_prefix(take + 1);
  }
}

bool output_lines::drain(int fd, const sink& out) {
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      feed(std::string_view(buf, static_cast<std::size_t>(n)), out);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

void output_lines::finish(const sink& out) {
  if (partial_.empty()) return;
  out(partial_);
  partial_.clear();
}

}  // namespace ferry::detail
