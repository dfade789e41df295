// Copyright ferry authors. Internal: message bodies in shared memory, on
// Linux: sealed memfds, passed between processes with SCM_RIGHTS.
//
// A body in a sealed memfd is authenticated by the file's identity rather
// than by its bytes: sealed against writing and shrinking, its content is
// fixed for as long as the file exists, and no other file can have its
// device and inode numbers while it does, so a tag over the identity is a
// tag over the content, without hashing megabytes twice per message.
#ifndef FERRY_SRC_EXECUTOR_WIRE_SHARED_MEMORY_LINUX_H_
#define FERRY_SRC_EXECUTOR_WIRE_SHARED_MEMORY_LINUX_H_

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "internal/unique_fd.h"

namespace ferry::detail {

class message_body;  // message_io.h

// A new memfd holding `bytes`, sealed against writing, shrinking and
// growing; empty if one cannot be made (out of descriptors, a file size
// limit).
unique_fd sealed_memfd(std::string_view bytes);

// The identity (device and inode numbers, u64 each) of the open file fd.
// Throws protocol_error if fstat fails.
std::string file_identity(int fd);
// The same, of a file already fstat'ed.
std::string file_identity(const struct stat& st);

// Maps a received memfd read-only (fd is closed once mapped, or on error);
// `identity` gets the file's identity. Throws protocol_error unless it is
// sealed against writing and shrinking and holds at least `length` bytes.
std::shared_ptr<const message_body> map_sealed_memfd(unique_fd fd, std::uint64_t length,
                                                     std::string& identity);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WIRE_SHARED_MEMORY_LINUX_H_
