// Copyright ferry authors.
//
// libFuzzer target: the executor's message reader on hostile bytes from a
// peer, delivered over a socketpair in pieces whose sizes the input picks.
// The first byte also picks whether the reader authenticates (bit 7): with
// it, the decoder's checks before the tag and the verification itself are
// exercised; without it, everything after.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "executor/wire/message_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > 60000) return 0;  // within one socket buffer
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return 0;
  const std::size_t piece = 1 + data[0] % 64;
  ferry::detail::message_reader reader(1u << 16);
  ferry::detail::channel_auth auth(std::string(32, 'k'), ferry::detail::channel_auth::side::pool);
  if ((data[0] & 0x80) != 0) reader.authenticate_with(&auth);
  try {
    for (std::size_t at = 1; at < size; at += piece) {
      const std::size_t n = std::min(piece, size - at);
      if (write(sv[0], data + at, n) != static_cast<ssize_t>(n)) break;
      reader.fill(sv[1]);
      while (auto f = reader.next()) (void)f->body->view().size();
    }
    close(sv[0]);
    sv[0] = -1;
    while (reader.fill(sv[1]) == ferry::detail::message_reader::fill_result::data) {
      while (auto f = reader.next()) (void)f->body->view().size();
    }
  } catch (const ferry::error&) {
  }
  if (sv[0] >= 0) close(sv[0]);
  close(sv[1]);
  return 0;
}
