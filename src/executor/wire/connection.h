// Copyright ferry authors. Internal: one end of the channel between a pool
// and one of its workers, everything both ends need in one object: the
// sockets it owns (one it reads, one it writes; or one for both), the
// authentication of its messages, the reader of what
// arrives, the files it reuses for large bodies, the size above which a
// body goes in shared memory, and the messages queued to leave in one
// write. worker_slot (the pool's end) and worker_loop (the worker's) each
// hold one; message_io.h does the moving.
//
// Thread-safety: none; one thread owns a connection.
#ifndef FERRY_SRC_EXECUTOR_WIRE_CONNECTION_H_
#define FERRY_SRC_EXECUTOR_WIRE_CONNECTION_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "executor/wire/channel_auth.h"
#include "executor/wire/message_io.h"
#include "executor/wire/protocol.h"
#include "executor/wire/reusable_memory_linux.h"
#include "internal/unique_fd.h"

namespace ferry::detail {

class connection {
 public:
  struct settings {
    std::size_t max_body;  // a longer incoming body is a protocol_error
    std::size_t shared_memory_threshold = SIZE_MAX;  // a longer outgoing one goes in shared memory
    bool reuse_files = false;  // through files reused from message to message (reusable_memory_linux.h)
  };

  // Reads and writes `socket`.
  connection(unique_fd socket, settings s);
  // Reads `in` and writes `out`, the ends of two socket pairs, each
  // carrying one direction: read_blocking may then sleep in recvmsg, which
  // the peer's reading of what this side sent cannot wake (message_io.h).
  // An empty `out`: as connection(in, s).
  connection(unique_fd in, unique_fd out, settings s);
  // Not movable: the reader keeps a pointer to the authentication.
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  int fd() const { return socket_.get(); }  // what it reads; -1 once closed
  int out_fd() const { return out_ ? out_.get() : socket_.get(); }  // what it writes
  const settings& current() const { return settings_; }
  bool is_open() const { return static_cast<bool>(socket_); }
  void close() {
    socket_.reset();
    out_.reset();
  }
  // Shuts both directions down, the sockets staying open: the peer reads
  // the end of the stream, and its writes fail.
  void shut_down();

  // Every message from now on is signed with `key`, as `me`, and every one
  // read must verify under it. Once.
  void authenticate(std::string_view key, channel_auth::side me);
  void configure(settings s);
  // The reused files' descriptors (a worker started by fork closes them),
  // and the written socket's where it is not the read one.
  void append_descriptors(std::vector<int>& out) const;

  // Writes `m` now, signed once authenticate was called. Throws
  // protocol_error if the peer is gone or the socket closed.
  void send(const outgoing& m);
  // Writes `m` unsigned whatever authenticate said: the pool's hello alone,
  // which carries the key.
  void send_unsigned(const outgoing& m);
  // Queues `m` inline to leave with the others in one write at flush().
  // Throws protocol_error if it passes descriptors.
  void queue(const outgoing& m);
  bool has_queued() const { return !queued_.empty(); }
  // Writes what queue() gathered, in one write; returns how many of those
  // messages did not leave whole: the last ones, which never reached the
  // peer. Nothing queued stays.
  std::size_t flush();

  // One read of what arrived, not waiting, then next() for each whole
  // message; read_blocking waits for one (nullopt at a clean end). Throw
  // what message_reader's calls throw.
  message_reader::fill_result fill() { return reader_.fill(socket_.get()); }
  std::optional<message> next() { return reader_.next(); }
  bool last_fill_short() const { return reader_.last_fill_short(); }
  std::optional<message> read_blocking() { return reader_.read_blocking(socket_.get(), static_cast<bool>(out_)); }
  // Sleeps until input arrives or `most` passes (wait_for_input in
  // message_io.h); whether it came. A message already buffered is not
  // input: ask next() first.
  bool wait_for_input(std::chrono::milliseconds most) { return detail::wait_for_input(socket_.get(), most); }

 private:
  void write(const outgoing& m, channel_auth* auth);

  unique_fd socket_;  // read, and written unless out_ is open
  unique_fd out_;
  settings settings_;
  std::optional<channel_auth> auth_;
  message_reader reader_;
  std::optional<reusable_buffers> reuse_;
  std::string queued_;                 // messages queued, back to back
  std::vector<std::size_t> queued_ends_;  // where each ends in queued_
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WIRE_CONNECTION_H_
