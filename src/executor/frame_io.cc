// Copyright ferry authors.
#include "frame_io.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ferry::detail {
namespace {

constexpr std::size_t header_size = sizeof(protocol::header);
constexpr int max_fds_per_message = 4;

class inline_body final : public result_bytes {
 public:
  explicit inline_body(std::string bytes) : bytes_(std::move(bytes)) {}
  std::string_view view() const noexcept override { return bytes_; }

 private:
  std::string bytes_;
};

// A body in a shared-memory file, mapped read-only for its lifetime.
class mapped_body final : public result_bytes {
 public:
  mapped_body(void* data, std::size_t size) : data_(data), size_(size) {}
  ~mapped_body() override {
    if (size_ != 0) ::munmap(data_, size_);
  }
  std::string_view view() const noexcept override {
    return {static_cast<const char*>(data_), size_};
  }

 private:
  void* data_;
  std::size_t size_;
};

[[noreturn]] void throw_errno(const char* what) {
  throw protocol_error(std::string(what) + ": " + std::strerror(errno));
}

// What authenticates a shared-memory body: the file's identity, not its
// bytes. The file is sealed against writing and shrinking, so its content is
// fixed for as long as it exists, and no other file can have its device and
// inode numbers while it does: a tag over the identity is a tag over the
// content, without hashing megabytes twice per message.
std::string file_identity(const struct stat& st) {
  const std::uint64_t id[2] = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  return std::string(reinterpret_cast<const char*>(id), sizeof id);
}

// Maps a received shared-memory body; `identity` gets the file's identity.
std::shared_ptr<const result_bytes> map_body(int fd, std::uint64_t length, std::string& identity) {
  struct stat st {};
  const int seals = ::fcntl(fd, F_GET_SEALS);
  // Without these seals the sender could shrink the file under our mapping.
  const int needed = F_SEAL_SHRINK | F_SEAL_WRITE;
  if (::fstat(fd, &st) != 0 || seals < 0 || (seals & needed) != needed ||
      static_cast<std::uint64_t>(st.st_size) < length) {
    ::close(fd);
    throw protocol_error("shared-memory body is not a sealed memfd of " +
                         std::to_string(length) + " bytes");
  }
  identity = file_identity(st);
  void* data = nullptr;
  if (length != 0) {
    data = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
    if (data == MAP_FAILED) {
      ::close(fd);
      throw_errno("mmap of a message body");
    }
  }
  ::close(fd);
  return std::make_shared<mapped_body>(data, length);
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

// A sealed memfd holding `body`, or -1 if one cannot be made.
int sealed_copy(std::string_view body) {
  const int mem = ::memfd_create("ferry-message", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (mem < 0) return -1;
  const char* p = body.data();
  std::size_t left = body.size();
  while (left > 0) {
    const ssize_t n = ::write(mem, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(mem);
      return -1;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fcntl(mem, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    ::close(mem);
    return -1;
  }
  return mem;
}

// `authenticated` is the body, or the identity of the file holding it.
protocol::header make_header(channel_auth* auth, protocol::kind type, std::uint64_t id,
                             std::uint64_t length, std::string_view authenticated,
                             std::uint8_t flags) {
  protocol::header h{protocol::magic, type, flags, 0, id, length, 0, {}};
  if (auth != nullptr) auth->sign(h, authenticated);
  return h;
}

}  // namespace

frame_reader::~frame_reader() {
  for (int fd : fds_) ::close(fd);
}

frame_reader::fill_result frame_reader::fill(int fd, bool nonblocking) {
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
        if (mid_frame()) throw protocol_error("connection reset in the middle of a message");
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
    // arrive are in fds_, closed with the reader): the frame cannot be read.
    if ((msg.msg_flags & MSG_CTRUNC) != 0)
      throw protocol_error(
          "a shared-memory message arrived but its descriptor was dropped: this process has "
          "no descriptor free (RLIMIT_NOFILE)");
    if (n == 0) {
      if (mid_frame())
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

std::optional<frame> frame_reader::next() {
  if (buffer_.size() - consumed_ < header_size) return std::nullopt;
  protocol::header h;
  std::memcpy(&h, buffer_.data() + consumed_, header_size);
  if (h.magic != protocol::magic) throw protocol_error("message with a bad magic number");
  if (h.length > max_body_)
    throw protocol_error("message of " + std::to_string(h.length) +
                         " bytes is larger than the maximum of " + std::to_string(max_body_));
  if ((h.flags & protocol::flag_shared_memory) != 0) {
    if (fds_.empty()) throw protocol_error("shared-memory message without its descriptor");
    const int fd = fds_.front();
    fds_.pop_front();
    consumed_ += header_size;
    std::string identity;
    auto body = map_body(fd, h.length, identity);
    if (auth_ != nullptr) auth_->verify(h, identity);
    return frame{h, std::move(body)};
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
  return frame{h, std::make_shared<inline_body>(std::move(body))};
}

std::optional<frame> frame_reader::read_blocking(int fd) {
  for (;;) {
    if (std::optional<frame> f = next()) return f;
    if (fill(fd, false) == fill_result::end) return std::nullopt;
  }
}

void write_frame(int fd, channel_auth* auth, protocol::kind type, std::uint64_t id,
                 std::string& message, std::size_t shared_memory_threshold, std::uint8_t flags) {
  const std::size_t body = message.size() - header_size;
  const std::string_view body_bytes = std::string_view(message).substr(header_size);
  // Without shared memory (out of descriptors, a file size limit) a large
  // body goes inline too: every receiver accepts that up to the same maximum.
  const int mem = body > shared_memory_threshold ? sealed_copy(body_bytes) : -1;
  if (mem < 0) {
    const protocol::header h = make_header(auth, type, id, body, body_bytes, flags);
    std::memcpy(message.data(), &h, header_size);
    iovec iov{message.data(), message.size()};
    send_all(fd, &iov, 1, -1);
    return;
  }
  struct stat st {};
  if (::fstat(mem, &st) != 0) {
    ::close(mem);
    throw_errno("fstat of shared memory");
  }
  protocol::header h =
      make_header(auth, type, id, body, file_identity(st), flags | protocol::flag_shared_memory);
  iovec iov{&h, header_size};
  try {
    send_all(fd, &iov, 1, mem);
  } catch (...) {
    ::close(mem);
    throw;
  }
  ::close(mem);
}

void write_frame(int fd, channel_auth* auth, protocol::kind type, std::uint64_t id,
                 std::string_view body) {
  const protocol::header h = make_header(auth, type, id, body.size(), body, 0);
  iovec iov[2] = {{const_cast<protocol::header*>(&h), header_size},
                  {const_cast<char*>(body.data()), body.size()}};
  send_all(fd, iov, body.empty() ? 1 : 2, -1);
}

}  // namespace ferry::detail
