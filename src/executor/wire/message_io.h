// Copyright ferry authors. Internal: moving protocol messages (protocol.h)
// over a Unix stream socket.
//
// Handles what sockets do to messages: partial reads and writes, EINTR, a
// peer that closes mid-message, bodies in shared memory, descriptors the
// kernel drops, and messages larger than the configured maximum. Each of
// these has a test in tests/executor/message_io_test.cc.
//
// Thread-safety: none; one thread owns a connection's reader and writes.
#ifndef FERRY_SRC_EXECUTOR_WIRE_MESSAGE_IO_H_
#define FERRY_SRC_EXECUTOR_WIRE_MESSAGE_IO_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "internal/export.h"
#include "executor/wire/channel_auth.h"
#include <executor/internal/future_state.h>
#include "executor/wire/protocol.h"
#include "executor/wire/reusable_memory_linux.h"

namespace ferry::detail {

// The body of a message, as received: in the reader's memory or mapped from
// shared memory. A finished task's state holds its result's body.
class FERRY_INTERNAL_EXPORT message_body {
 public:
  virtual ~message_body();
  virtual std::string_view view() const noexcept = 0;
  // The descriptors passed beside the body (protocol::max_attachments at
  // most), open while the body lives: the memory of its shared buffers.
  virtual std::span<const int> attachments() const noexcept { return {}; }
};

// A body holding `bytes` (one received from elsewhere: the MPI pool).
FERRY_INTERNAL_EXPORT std::shared_ptr<const message_body> make_message_body(std::string bytes);

struct message {
  protocol::header header;
  std::shared_ptr<const message_body> body;
};

// Accumulates bytes from a socket and cuts them into messages.
class message_reader {
 public:
  explicit message_reader(std::size_t max_body) : max_body_(max_body) {}
  ~message_reader();
  message_reader(const message_reader&) = delete;
  message_reader& operator=(const message_reader&) = delete;

  enum class fill_result { data, nothing, end };
  // One recvmsg on fd that does not wait (with `wait`, one that sleeps for
  // input if fd blocks): data read, nothing to read yet, or end of stream.
  // Throws protocol_error if the stream ends inside a message, on a socket
  // error, or when a descriptor sent with the bytes was dropped.
  fill_result fill(int fd, bool wait = false);
  // Whether the last fill that read data took less than it had room for:
  // the socket held no more then (or its next bytes carry descriptors, which
  // a read does not join to those before). A reader woken by poll, which is
  // level-triggered, can go back to poll instead of reading once more to
  // find nothing: poll reports what came since.
  bool last_fill_short() const { return last_fill_short_; }
  // The next complete message, if buffered. Throws protocol_error for a bad
  // header or a body above the maximum, authentication_failure for a
  // message that does not verify under authenticate_with's channel.
  std::optional<message> next();
  // Blocks until a whole message has arrived; nullopt at a clean end of
  // stream. It sleeps in poll, woken only when input arrives; with
  // `sleep_in_receive`, in recvmsg itself, one system call fewer, which
  // suits only a socket this side never writes to: a reader asleep in
  // recvmsg is woken too whenever the peer consumes what this side sent
  // (the kernel tells the socket's sleepers that there is room to write).
  std::optional<message> read_blocking(int fd, bool sleep_in_receive = false);

  void set_max_body(std::size_t max_body) { max_body_ = max_body; }
  // Every message from now on must verify under `auth`, which must outlive
  // this reader's use of it.
  void authenticate_with(channel_auth* auth) { auth_ = auth; }
  bool mid_message() const { return buffer_.size() != consumed_; }

 private:
  std::size_t max_body_;
  channel_auth* auth_ = nullptr;
  std::string buffer_;
  std::size_t consumed_ = 0;
  bool last_fill_short_ = false;
  std::deque<int> fds_;  // received with SCM_RIGHTS, in order
  reusable_mappings reusable_;  // the peer's reusable files, mapped
};

// A message to send: its kind, the task it is about (0: none), its body, the
// header's flags, and the descriptors that travel beside it (at most
// protocol::max_attachments; the receiver's copies stay open as long as its
// message_body).
struct outgoing {
  protocol::kind type;
  std::uint64_t id = 0;
  std::string_view body = {};
  std::uint8_t flags = 0;
  std::span<const int> attachments = {};
};

// Sleeps until fd has input, or its peer is gone (the next read says so),
// or `most` has passed (nullopt: no bound); whether input came. A signal
// does not restart the wait: it goes on for what is left of `most`. Throws
// protocol_error if poll fails.
bool wait_for_input(int fd, std::optional<std::chrono::milliseconds> most);

// Sends `m`, signed by `auth` unless it is null (the hello only). A body
// larger than `shared_memory_threshold` goes through one of `reuse`'s files
// when it is given and one is free, else a sealed memfd, or inline when
// none can be made. Blocks until sent (polling if fd is non-blocking);
// throws protocol_error if the peer is gone. A connection (connection.h)
// holds the auth, threshold and files of one channel and calls this.
void write_message(int fd, channel_auth* auth, const outgoing& m, std::size_t shared_memory_threshold = SIZE_MAX,
                   reusable_buffers* reuse = nullptr);

// Appends `m` inline, signed by `auth`, to `out`: messages so gathered
// leave in one write (write_gathered), one system call for a batch of tasks
// instead of one per task. Throws protocol_error if `m` passes descriptors,
// which only write_message can send.
void append_message(std::string& out, channel_auth* auth, const outgoing& m);

// Writes all of `bytes`, blocking (polling if fd is non-blocking), and
// returns how many left: bytes.size(), or fewer if the peer is gone, so
// that the caller knows which of the gathered messages were sent whole.
std::size_t write_gathered(int fd, std::string_view bytes) noexcept;

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WIRE_MESSAGE_IO_H_
