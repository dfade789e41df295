// Copyright ferry authors. Internal: reading and writing protocol frames.
//
// Handles what sockets do to frames: partial reads and writes, EINTR, a
// peer that closes mid-frame, bodies in shared memory, and frames larger
// than the configured maximum. Each of these has a test in
// tests/executor/frame_io_test.cc.
#ifndef FERRY_SRC_EXECUTOR_FRAME_IO_H_
#define FERRY_SRC_EXECUTOR_FRAME_IO_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "channel_auth.h"
#include "executor/future.h"
#include "protocol.h"
#include "serialize/error.h"

namespace ferry::detail {

// A malformed or oversized frame, or a broken connection.
class protocol_error : public error {
 public:
  explicit protocol_error(const std::string& message) : error("ferry: " + message) {}
};

struct frame {
  protocol::header header;
  std::shared_ptr<const result_bytes> body;
};

// Accumulates bytes from a socket and cuts them into frames.
class frame_reader {
 public:
  explicit frame_reader(std::size_t max_body) : max_body_(max_body) {}
  ~frame_reader();
  frame_reader(const frame_reader&) = delete;
  frame_reader& operator=(const frame_reader&) = delete;

  enum class fill_result { data, nothing, end };
  // One recvmsg on fd (MSG_DONTWAIT if `nonblocking`): data read, nothing
  // to read yet, or end of stream. Throws protocol_error if the stream ends
  // inside a frame, or on a socket error.
  fill_result fill(int fd, bool nonblocking);
  // The next complete frame, if buffered. Throws protocol_error for a bad
  // header or a body above the maximum, authentication_failure for a frame
  // that does not verify under authenticate_with's channel.
  std::optional<frame> next();
  // Blocks until a whole frame has arrived; nullopt at a clean end of stream.
  std::optional<frame> read_blocking(int fd);

  void set_max_body(std::size_t max_body) { max_body_ = max_body; }
  // Every frame from now on must verify under `auth`, which must outlive
  // this reader's use of it.
  void authenticate_with(channel_auth* auth) { auth_ = auth; }
  bool mid_frame() const { return buffer_.size() != consumed_; }

 private:
  std::size_t max_body_;
  channel_auth* auth_ = nullptr;
  std::string buffer_;
  std::size_t consumed_ = 0;
  std::deque<int> fds_;  // received with SCM_RIGHTS, in order
};

// Sends a message whose first 64 bytes are room for the header, signed by
// `auth` unless it is null (the hello only). A body larger than
// `shared_memory_threshold` goes through a sealed memfd. Blocks until sent
// (polling if fd is non-blocking); throws protocol_error if the peer is gone
// or shared memory cannot be made.
void write_frame(int fd, channel_auth* auth, protocol::kind type, std::uint64_t id,
                 std::string& message, std::size_t shared_memory_threshold, std::uint8_t flags = 0);

// A message with this body, for small control frames.
void write_frame(int fd, channel_auth* auth, protocol::kind type, std::uint64_t id,
                 std::string_view body);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_FRAME_IO_H_
