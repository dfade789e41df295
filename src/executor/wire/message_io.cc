// Copyright ferry authors.
#include "executor/wire/message_io.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "executor/wire/shared_memory_linux.h"

namespace ferry::detail {
namespace {

using protocol::header_size;
// A shared-memory body's, then the attachments.
constexpr std::size_t max_fds_per_message = 1 + protocol::max_attachments;

class inline_body final : public message_body {
 public:
  explicit inline_body(std::string bytes) : bytes_(std::move(bytes)) {}
  std::string_view view() const noexcept override { return bytes_; }

 private:
  std::string bytes_;
};

// A body and the descriptors passed beside it.
class attached_body final : public message_body {
 public:
  attached_body(std::shared_ptr<const message_body> body, fd_list fds)
      : body_(std::move(body)), fds_(std::move(fds)) {}
  std::string_view view() const noexcept override { return body_->view(); }
  std::span<const int> attachments() const noexcept override { return fds_.view(); }

 private:
  std::shared_ptr<const message_body> body_;
  fd_list fds_;
};

// What a message's tag covers of the descriptors passed with it.
std::string identities(std::span<const int> fds) {
  std::string out;
  for (int fd : fds) out += file_identity(fd);
  return out;
}

}  // namespace

std::shared_ptr<const message_body> make_message_body(std::string bytes) {
  return std::make_shared<inline_body>(std::move(bytes));
}

namespace {

[[noreturn]] void throw_errno(const char* what) {
  throw protocol_error(std::string(what) + ": " + std::strerror(errno));
}

// Sleeps until fd has room to write (through a signal too); false if poll
// failed, errno saying why.
bool wait_for_room(int fd) noexcept {
  pollfd p{fd, POLLOUT, 0};
  int ready;
  while ((ready = ::poll(&p, 1, -1)) < 0 && errno == EINTR) {
  }
  return ready >= 0;
}

// Sends the bytes of the iovecs, the first sendmsg carrying `pass`,
// blocking (polling if fd is non-blocking) until all are sent or the peer is
// gone. Returns how many bytes left; fewer than all: errno says why.
std::size_t send_all(int fd, iovec* iov, int iovcnt, std::span<const int> pass) noexcept {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * max_fds_per_message)];
  bool fd_sent = pass.empty();
  std::size_t sent = 0;
  while (iovcnt > 0) {
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<std::size_t>(iovcnt);
    if (!fd_sent) {
      msg.msg_control = control;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * pass.size());
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * pass.size());
      std::memcpy(CMSG_DATA(c), pass.data(), sizeof(int) * pass.size());
    }
    const ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        wait_for_room(fd);
        continue;
      }
      return sent;
    }
    fd_sent = true;
    sent += static_cast<std::size_t>(n);
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
  return sent;
}

// send_all for a whole message: throws connection_lost if the peer is
// gone, protocol_error for another failure.
void send_message(int fd, iovec* iov, int iovcnt, std::span<const int> pass) {
  std::size_t total = 0;
  for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
  if (send_all(fd, iov, iovcnt, pass) == total) return;
  if (errno == EPIPE || errno == ECONNRESET)
    throw connection_lost(std::string("sending a message: ") + std::strerror(errno));
  throw_errno("sending a message");
}

// `authenticated` is the body, or the identity of the file holding it.
protocol::header signed_header(channel_auth* auth, protocol::kind type, std::uint64_t id,
                               std::uint64_t length, std::string_view authenticated,
                               std::uint8_t flags, std::span<const int> attachments = {}) {
  protocol::header h = protocol::make_header(type, id, length, flags);
  h.attachments = static_cast<std::uint16_t>(attachments.size());
  if (auth != nullptr) auth->sign(h, authenticated, attachments.empty() ? std::string() : identities(attachments));
  return h;
}

}  // namespace

message_body::~message_body() = default;

message_reader::~message_reader() {
  for (int fd : fds_) ::close(fd);
}

message_reader::fill_result message_reader::fill(int fd, bool wait) {
  char chunk[64 * 1024];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * max_fds_per_message)];
  for (;;) {
    iovec iov{chunk, sizeof chunk};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | (wait ? 0 : MSG_DONTWAIT));
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
    last_fill_short_ = static_cast<std::size_t>(n) < sizeof chunk;
    return fill_result::data;
  }
}

std::optional<message> message_reader::next() {
  if (buffer_.size() - consumed_ < header_size) return std::nullopt;
  const protocol::header h = protocol::read_header(buffer_.data() + consumed_, max_body_);
  const bool shared = (h.flags & protocol::flag_shared_memory) != 0;
  if (!shared && buffer_.size() - consumed_ - header_size < h.length) return std::nullopt;
  // The descriptors came with the header's first byte: all are here, in
  // the order sent (the body's first), or the sender broke the protocol.
  const std::size_t fd_count = (shared ? 1 : 0) + std::size_t{h.attachments};
  if (fds_.size() < fd_count)
    throw protocol_error("a message passes " + std::to_string(fd_count) + " descriptors but " +
                         std::to_string(fds_.size()) + " came with it");
  fd_list passed;
  unique_fd body_fd(shared ? fds_.front() : -1);
  if (shared) fds_.pop_front();
  for (std::size_t i = 0; i < h.attachments; ++i) {
    passed.push_back(fds_.front());
    fds_.pop_front();
  }
  const std::string passed_identities = passed.empty() ? std::string() : identities(passed.view());
  std::shared_ptr<const message_body> body;
  if (shared) {
    consumed_ += header_size;
    std::string identity;
    body = (h.flags & protocol::flag_reusable_memory) != 0
               ? reusable_.body(std::move(body_fd), h.length, identity)
               : map_sealed_memfd(std::move(body_fd), h.length, identity);
    if (auth_ != nullptr) auth_->verify(h, identity, passed_identities);
  } else {
    if (auth_ != nullptr)
      auth_->verify(h, std::string_view(buffer_).substr(consumed_ + header_size, h.length), passed_identities);
    body = std::make_shared<inline_body>(buffer_.substr(consumed_ + header_size, h.length));
    consumed_ += header_size + h.length;
    if (consumed_ > (1u << 20) && consumed_ * 2 > buffer_.size()) {
      buffer_.erase(0, consumed_);
      consumed_ = 0;
    }
  }
  if (!passed.empty()) body = std::make_shared<attached_body>(std::move(body), std::move(passed));
  return message{h, std::move(body)};
}

std::optional<message> message_reader::read_blocking(int fd, bool sleep_in_receive) {
  for (;;) {
    if (std::optional<message> m = next()) return m;
    // Where this side also writes, it sleeps in poll, for input alone, then
    // reads without blocking: asleep in recvmsg, a worker waiting for its
    // next task was woken for nothing as the pool read each result, one
    // context switch more per task (executor_bench hops).
    fill_result got = fill_result::nothing;
    if (sleep_in_receive) got = fill(fd, true);  // nothing: fd does not block
    if (got == fill_result::nothing) {
      (void)wait_for_input(fd, std::nullopt);
      got = fill(fd);
    }
    if (got == fill_result::end) return std::nullopt;
  }
}

bool wait_for_input(int fd, std::optional<std::chrono::milliseconds> most) {
  using clock = std::chrono::steady_clock;
  const clock::time_point deadline = most ? clock::now() + *most : clock::time_point::max();
  for (;;) {
    int timeout = -1;
    if (most) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now()).count();
      timeout = static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(left, 0, INT_MAX));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout);
    if (ready >= 0) return ready > 0;
    // A signal: wait again, for what is left of the time only, so that
    // signals coming more often than `most` cannot make the wait endless.
    if (errno != EINTR) throw_errno("waiting for a message");
  }
}

void write_message(int fd, channel_auth* auth, const outgoing& m, std::size_t shared_memory_threshold,
                   reusable_buffers* reuse) {
  const auto [type, id, body, flags, attachments] = m;
  if (attachments.size() > protocol::max_attachments)
    throw protocol_error("a message cannot pass " + std::to_string(attachments.size()) + " descriptors");
  // Without shared memory (out of descriptors, a file size limit) a large
  // body goes inline too: every receiver accepts that up to the same maximum.
  const bool large = body.size() > shared_memory_threshold;
  // A reusable file stays open with `reuse`; a sealed one is closed here.
  const int reused = large && reuse != nullptr ? reuse->put(body) : -1;
  const unique_fd sealed = reused < 0 && large ? sealed_memfd(body) : unique_fd();
  const int mem = reused >= 0 ? reused : sealed.get();
  if (mem < 0) {
    const protocol::header h = signed_header(auth, type, id, body.size(), body, flags, attachments);
    iovec iov[2] = {{const_cast<protocol::header*>(&h), header_size},
                    {const_cast<char*>(body.data()), body.size()}};
    send_message(fd, iov, body.empty() ? 1 : 2, attachments);
    return;
  }
  const std::uint8_t where = protocol::flag_shared_memory | (reused >= 0 ? protocol::flag_reusable_memory : 0);
  protocol::header h = signed_header(auth, type, id, body.size(), file_identity(mem), flags | where, attachments);
  int pass[max_fds_per_message];
  pass[0] = mem;
  std::copy(attachments.begin(), attachments.end(), pass + 1);
  iovec iov{&h, header_size};
  send_message(fd, &iov, 1, std::span<const int>(pass, 1 + attachments.size()));
}

void append_message(std::string& out, channel_auth* auth, const outgoing& m) {
  if (!m.attachments.empty()) throw protocol_error("a message that passes descriptors cannot wait in a batch");
  const auto& [type, id, body, flags, attachments] = m;
  const protocol::header h = signed_header(auth, type, id, body.size(), body, flags);
  out.append(reinterpret_cast<const char*>(&h), header_size);
  out.append(body);
}

std::size_t write_gathered(int fd, std::string_view bytes) noexcept {
  iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
  return bytes.empty() ? 0 : send_all(fd, &iov, 1, {});
}

}  // namespace ferry::detail
