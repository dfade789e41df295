// Copyright ferry authors. Internal: the messages between a pool and its
// workers (docs/api/wire_format.md, "Executor messages").
//
// Every message is a 64-byte header and a body. The body follows the header
// on the socket, or, when the header has flag_shared_memory, lives in a
// sealed memfd passed with the header (SCM_RIGHTS).
//
// Every message but the first (the hello, which carries the pool's key) is
// authenticated: the header's tag is HMAC-SHA256, under the pool's key, of
// the sender's direction byte, the header's first 32 bytes and the body (for
// a body in shared memory, the sealed file's device and inode numbers: see
// frame_io.cc). The
// sequence number counts a direction's authenticated messages from 0, so a
// replayed, dropped or reordered message does not verify either
// (channel_auth.h).
#ifndef FERRY_SRC_EXECUTOR_PROTOCOL_H_
#define FERRY_SRC_EXECUTOR_PROTOCOL_H_

#include <cstdint>

namespace ferry::detail::protocol {

inline constexpr std::uint32_t magic = 0x57595246;  // "FRYW" little-endian

enum class kind : std::uint8_t {
  hello = 1,         // pool -> worker: configuration (see worker_main.cc)
  ready = 2,         // worker -> pool: configured, initializer done
  task = 3,          // pool -> worker: function, u32 count, arguments
  result = 4,        // worker -> pool: the task's result items
  exit = 5,          // pool -> worker: finish and exit
  start_failed = 6,  // worker -> pool: why it cannot start (text)
};

inline constexpr std::uint8_t flag_shared_memory = 1;
// On a result: the worker exits after it (it went over its memory limit).
inline constexpr std::uint8_t flag_retiring = 2;

struct header {
  std::uint32_t magic;
  kind type;
  std::uint8_t flags;
  std::uint16_t reserved;
  std::uint64_t id;        // task id; 0 for others
  std::uint64_t length;    // body bytes
  std::uint64_t sequence;  // of this direction's authenticated messages
  unsigned char tag[32];   // HMAC-SHA256; zero on the hello
};
static_assert(sizeof(header) == 64);
inline constexpr std::size_t authenticated_header_bytes = 32;  // before the tag

// The pool's key, at the start of the hello's body.
inline constexpr std::size_t key_size = 32;

// A result body: u8 whole (0: items follow; 1: one exception record for all
// items), then u32 count and `count` items, each a u64 length and that many
// bytes: u8 status (0 value, 1 exception record) and the value.
// An exception record: u8 exception_kind, string type name, string what
// (for serialization, then u8 serialization_error::phase).
enum class exception_kind : std::uint8_t {
  other = 0,  // rethrown as ferry::task_error
  runtime_error,
  logic_error,
  invalid_argument,
  out_of_range,
  domain_error,
  length_error,
  range_error,
  overflow_error,
  underflow_error,
  bad_alloc,
  serialization,  // ferry::serialization_error; a u8 phase follows the record
};

// Exit status of a spawned program that does not call serve_if_worker.
inline constexpr int no_entry_point_status = 86;
// Exit status of a worker whose task alone used more than its memory limit.
inline constexpr int task_memory_status = 87;
// Exit status of a worker that received a message that failed authentication.
inline constexpr int authentication_status = 88;

}  // namespace ferry::detail::protocol

#endif  // FERRY_SRC_EXECUTOR_PROTOCOL_H_
