// Copyright ferry authors. Internal: large message bodies in shared memory
// that one connection reuses from message to message, on Linux.
//
// A sealed memfd per message (shared_memory_linux.h) costs fresh pages on
// both sides every time: the sender's kernel clears and fills new pages and
// the receiver faults each of them in, several times the cost of a copy into
// pages already mapped (docs/performance.md, the 64 MiB row). So the sender
// keeps a few memfds mapped (reusable_buffers) and the receiver keeps its
// mappings of them (reusable_mappings). Each file's first page is a control
// word, busy while the receiver holds the body written there: the sender
// sets it before the message leaves, the receiver clears it when its last
// reference to the body goes, and the sender writes only into a file whose
// word is clear. A receiver that dies holding one leaves it busy; its
// sender then stops using that file (and, past max_buffers, sends sealed
// memfds as before).
//
// Both sides map the files MADV_DONTFORK, and a worker started by fork
// closes the pool's descriptors of them, so a fork holds neither.
//
// Trust: the files are sealed against shrinking (so a mapping cannot lose
// its pages under the reader), not against writing. The tag of a message
// covers the file's identity and the body's length, as for a sealed file,
// and only the two processes of the connection map it: the descriptors
// close on exec, so a program a task starts never holds one. The bytes are
// therefore as trustworthy as the peer process, which is what the protocol
// already trusts for everything it sends; every read of them is bounded by
// the length, so bytes changed during a read make a decoding error, never
// a read outside the mapping.
//
// Thread-safety: each object belongs to the one thread that owns the
// connection; the control word is the only state shared with the peer (and
// with whichever thread of the receiver drops the body last).
#ifndef FERRY_SRC_EXECUTOR_WIRE_REUSABLE_MEMORY_LINUX_H_
#define FERRY_SRC_EXECUTOR_WIRE_REUSABLE_MEMORY_LINUX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "internal/unique_fd.h"

namespace ferry::detail {

class message_body;  // message_io.h

// Where a body starts in a reusable file: after the control page.
inline constexpr std::size_t reusable_body_offset = 4096;

// The sending side's files.
class reusable_buffers {
 public:
  // How many files one connection keeps at most.
  static constexpr std::size_t max_buffers = 4;

  reusable_buffers() = default;
  ~reusable_buffers();  // unmaps and closes them; the receiver's mappings stay valid
  reusable_buffers(const reusable_buffers&) = delete;
  reusable_buffers& operator=(const reusable_buffers&) = delete;

  // Copies `body` into a file whose control word is clear (making or
  // replacing one if none is large enough), marks it busy, and returns its
  // descriptor, owned by this object and open until it is destroyed. -1 if
  // none can be had (all busy, out of descriptors or memory): the caller
  // sends the body another way.
  int put(std::string_view body);

  std::size_t size() const { return buffers_.size(); }
  // Their descriptors: a worker started by fork closes them.
  void append_descriptors(std::vector<int>& out) const;

 private:
  struct buffer {
    int fd;
    char* base;
    std::size_t capacity;  // bytes of body room, after the control page
  };
  static bool busy(const buffer& b);
  static void release(buffer& b);
  std::vector<buffer> buffers_;
};

// The receiving side: its mappings of the sender's files, kept while a body
// uses one or until max_mappings others have come since.
class reusable_mappings {
 public:
  static constexpr std::size_t max_mappings = 8;

  // The body of `length` bytes in the file `fd` (closed when mapped), which must be
  // a memfd sealed against shrinking with room for it; `identity` gets the
  // file's identity. The body clears the file's control word when its last
  // reference goes. Throws protocol_error for a file that does not qualify.
  std::shared_ptr<const message_body> body(unique_fd fd, std::uint64_t length, std::string& identity);

  struct mapping;  // one file mapped: defined in the .cc

 private:
  std::vector<std::shared_ptr<mapping>> cached_;  // most recently used last
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WIRE_REUSABLE_MEMORY_LINUX_H_
