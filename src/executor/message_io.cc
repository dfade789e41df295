// Copyright ferry authors.
#include "executor/message_io.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "executor/shared_memory_linux.h"

namespace ferry::detail {
namespace {

using protocol::header_size;
constexpr int max_fds_per_message = 4;

class inline_body final : public message_body {
 public:
  explicit inline_body(std::string bytes) : bytes_(std::move(bytes)) {}
  std::string_view view() const noexcept override { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace

std::shared_ptr<const message_body> make_message_body(std::string bytes) {
  return std::make_shared<inline_body>(std::move(bytes));
}

namespace {

[[noreturn]] void throw_errno(const char* what) {
  throw protocol_error(std::string(what) + ": " + std::strerror(errno));
}

void wait_writable(int fd) {
  pollfd p{fd, POLLOUT, 0};
  while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
  }
}

// Sends all bytes of the iovecs, the first sendmsg carrying `pass_fd`.
void send_all(int fd, iovec* iov, int iovcnt, int pass_fd) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  bool fd_sent = pass_fd < 0;
  while (iovcnt > 0) {
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<std::size_t>(iovcnt);
    if (!fd_sent) {
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int));
      std::memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
    }
    const ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        wait_writable(fd);
        continue;
      }
      throw_errno("sending a message");
    }
    fd_sent = true;
    auto left = static_cast<std::size_t>(n);
    while (iovcnt > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov;
      --iovcnt;
    }
    if (iovcnt > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
}

// `authenticated` is the body, or the identity of the file holding it.
protocol::header signed_header(channel_auth* auth, protocol::kind type, std::uint64_t id,
                               std::uint64_t length, std::string_view authenticated,
                               std::uint8_t flags) {
  protocol::header h = protocol::make_header(type, id, length, flags);
  if (auth != nullptr) auth->sign(h, authenticated);
  return h;
}

}  // namespace

message_body::~message_body() = default;

message_reader::~message_reader() {
  for (int fd : fds_) ::close(fd);
}

message_reader::fill_result message_reader::fill(int fd, bool nonblocking) {
  char chunk[64 * 1024];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * max_fds_per_message)];
  for (;;) {
    iovec iov{chunk, sizeof chunk};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | (nonblocking ? MSG_DONTWAIT : 0));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return fill_result::nothing;
      if (errno == ECONNRESET) {
        if (mid_message()) throw protocol_error("connection reset in the middle of a message");
        return fill_result::end;
      }
      throw_errno("receiving a message");
    }
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int received;
        std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        fds_.push_back(received);
      }
    }
    // The kernel dropped a descriptor sent with these bytes (those that did
    // arrive are in fds_, closed with the reader): the message cannot be read.
    if ((msg.msg_flags & MSG_CTRUNC) != 0)
      throw protocol_error(
          "a shared-memory message arrived but its descriptor was dropped: this process has "
          "no descriptor free (RLIMIT_NOFILE)");
    if (n == 0) {
      if (mid_message())
        throw protocol_error("peer closed the connection in the middle of a message (" +
                             std::to_string(buffer_.size() - consumed_) + " bytes of it read)");
      return fill_result::end;
    }
    if (consumed_ == buffer_.size()) {
      buffer_.clear();
      consumed_ = 0;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
    return fill_result::data;
  }
}

std::optional<message> message_reader::next() {
  if (buffer_.size() - consumed_ < header_size) return std::nullopt;
  const protocol::header h = protocol::read_header(buffer_.data() + consumed_, max_body_);
  if ((h.flags & protocol::flag_shared_memory) != 0) {
    if (fds_.empty()) throw protocol_error("shared-memory message without its descriptor");
    const int fd = fds_.front();
    fds_.pop_front();
    consumed_ += header_size;
    std::string identity;
    auto body = map_sealed_memfd(fd, h.length, identity);
    if (auth_ != nullptr) auth_->verify(h, identity);
    return message{h, std::move(body)};
  }
  if (buffer_.size() - consumed_ - header_size < h.length) return std::nullopt;
  if (auth_ != nullptr)
    auth_->verify(h, std::string_view(buffer_).substr(consumed_ + header_size, h.length));
  std::string body = buffer_.substr(consumed_ + header_size, h.length);
  consumed_ += header_size + h.length;
  if (consumed_ > (1u << 20) && consumed_ * 2 > buffer_.size()) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  return message{h, std::make_shared<inline_body>(std::move(body))};
}

std::optional<message> message_reader::read_blocking(int fd) {
  for (;;) {
    if (std::optional<message> m = next()) return m;
    if (fill(fd, false) == fill_result::end) return std::nullopt;
  }
}

void write_message(int fd, channel_auth* auth, protocol::kind type, std::uint64_t id,
                   std::string_view body, std::size_t shared_memory_threshold, std::uint8_t flags) {
  // Without shared memory (out of descriptors, a file size limit) a large
  // body goes inline too: every receiver accepts that up to the same maximum.
  const int mem = body.size() > shared_memory_threshold ? sealed_memfd(body) : -1;
  if (mem < 0) {
    const protocol::header h = signed_header(auth, type, id, body.size(), body, flags);
    iovec iov[2] = {{const_cast<protocol::header*>(&h), header_size},
                    {const_cast<char*>(body.data()), body.size()}};
    send_all(fd, iov, body.empty() ? 1 : 2, -1);
    return;
  }
  try {
    protocol::header h = signed_header(auth, type, id, body.size(), file_identity(mem),
                                       flags | protocol::flag_shared_memory);
    iovec iov{&h, header_size};
    send_all(fd, &iov, 1, mem);
  } catch (...) {
    ::close(mem);
    throw;
  }
  ::close(mem);
}

void append_message(std::string& out, channel_auth* auth, protocol::kind type, std::uint64_t id,
                    std::string_view body, std::uint8_t flags) {
  const protocol::header h = signed_header(auth, type, id, body.size(), body, flags);
  out.append(reinterpret_cast<const char*>(&h), header_size);
  out.append(body);
}

std::size_t write_gathered(int fd, std::string_view bytes) noexcept {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        wait_writable(fd);
        continue;
      }
      return sent;
    }
    sent += static_cast<std::size_t>(n);
  }
  return sent;
}

}  // namespace ferry::detail
