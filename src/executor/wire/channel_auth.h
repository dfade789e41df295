// Copyright ferry authors. Internal: the authentication of the messages on
// one pool-worker connection (protocol.h).
//
// Why, on a socket private to two processes: a task runs arbitrary code in
// the worker, and code that writes to the wrong descriptor, or a library
// that inherited the socket, must not be able to make the pool believe a
// result or make a worker run a task the pool never sent. A message that
// does not verify means the other side is compromised or broken: the pool
// kills the worker, a worker exits (protocol::authentication_status).
//
// Thread-safety: none; the one thread that reads and writes a connection
// owns its channel_auth (the pool's manager thread, the worker's loop).
#ifndef FERRY_SRC_EXECUTOR_WIRE_CHANNEL_AUTH_H_
#define FERRY_SRC_EXECUTOR_WIRE_CHANNEL_AUTH_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "executor/wire/protocol.h"
#include <serialize/error.h>
#include "serialize/frame/hmac.h"

namespace ferry::detail {

// A message that failed authentication: a bad tag, or a sequence number
// other than the next one expected.
class authentication_failure : public error {
 public:
  explicit authentication_failure(const std::string& message)
      : error("ferry: a message failed authentication: " + message) {}
};

// A new random key for a pool (getrandom). Throws ferry::error.
std::string new_pool_key();

class channel_auth {
 public:
  enum class side : unsigned char { pool = 0, worker = 1 };

  // `key` is the pool's key (protocol::key_size bytes); `me` the side that
  // owns this object.
  channel_auth(std::string_view key, side me);

  // Assigns the next sequence number of this side and the tag, over the
  // body and `passed`: the identities of the descriptors passed beside it.
  void sign(protocol::header& h, std::string_view body, std::string_view passed = {});
  // Throws authentication_failure unless h is the other side's next message
  // and its tag matches the body and the passed descriptors' identities.
  void verify(const protocol::header& h, std::string_view body, std::string_view passed = {});

 private:
  hmac_sha256::tag compute(unsigned char direction, const protocol::header& h,
                           std::string_view body, std::string_view passed);

  hmac_sha256 mac_;
  side me_;
  std::uint64_t sent_ = 0;
  std::uint64_t received_ = 0;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WIRE_CHANNEL_AUTH_H_
