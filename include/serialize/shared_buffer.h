// Copyright ferry authors.
//
// ferry::shared_buffer: bytes in shared memory, passed to a process pool's
// task and back without being copied.
//
//   ferry::shared_buffer image(1 << 30);            // 1 GiB, zero-filled
//   std::span<float> pixels = image.as<float>();
//   auto f = pool.submit([](ferry::shared_buffer b) {
//     for (float& p : b.as<float>()) p *= 2;         // writes the caller's memory
//     return b;
//   }, image);
//   f.get();                                          // image now holds the doubled pixels
//
// A shared_buffer is a handle, like std::shared_ptr: copies share the same
// bytes, and the memory lives while any handle, in any process, does. The
// size is fixed at creation.
//
// How it travels (docs/api/shared_buffer.md has the rules in full):
//   - in a process_pool's task or result, as a descriptor of its memory
//     beside the message: the worker maps the same pages, nothing is copied,
//     at any size;
//   - anywhere else (ferry::dumps, an mpi_pool across ranks), as its bytes:
//     the reader gets a new buffer holding a copy.
// Both processes may write. ferry orders nothing beyond the task itself:
// what the caller wrote before submit is seen by the task, what the task
// wrote before returning is seen after get(); writing while the task runs
// is the caller's own race.
//
// Thread-safety: as a std::shared_ptr: distinct handles may be used from
// distinct threads; the bytes are the user's to synchronize.
#ifndef FERRY_SERIALIZE_SHARED_BUFFER_H_
#define FERRY_SERIALIZE_SHARED_BUFFER_H_

#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>

#include "serialize/archive.h"
#include "serialize/internal/config.h"

namespace ferry {

class FERRY_SERIALIZE_EXPORT shared_buffer {
 public:
  // No bytes, no memory.
  shared_buffer() noexcept = default;
  // `size` zero bytes in new shared memory (a memfd, mapped read-write).
  // Pages are taken from the system as they are first touched. Throws
  // ferry::error naming the failed call when the memory cannot be made
  // (out of descriptors, over a memory or file size limit).
  explicit shared_buffer(std::size_t size);

  std::byte* data() const noexcept;
  std::size_t size() const noexcept;
  bool empty() const noexcept { return size() == 0; }
  std::span<std::byte> bytes() const noexcept { return {data(), size()}; }

  // The bytes as an array of T. Throws ferry::error unless the size is a
  // multiple of sizeof(T). (The memory is page-aligned.)
  template <class T>
  std::span<T> as() const {
    static_assert(std::is_trivially_copyable_v<T>,
                  "ferry::shared_buffer::as<T>: T must be trivially copyable, as its bytes are "
                  "shared between processes as they are; for other types, serialize them");
    static_assert(alignof(T) <= 4096, "ferry::shared_buffer::as<T>: T is aligned past a page");
    check_multiple_of(sizeof(T));
    return {reinterpret_cast<T*>(data()), size() / sizeof(T)};
  }

  // Whether both handles share the same memory.
  friend bool operator==(const shared_buffer& a, const shared_buffer& b) noexcept {
    return a.memory_ == b.memory_;
  }

  // cereal's hooks (docs/api/wire_format.md, "Shared buffers"). Loading
  // throws ferry::format_error for bytes that name a descriptor which did
  // not come with them, or one that is not sealed shared memory of the
  // size they state.
  friend FERRY_SERIALIZE_EXPORT void save(output_archive& ar, const shared_buffer& b);
  friend FERRY_SERIALIZE_EXPORT void load(input_archive& ar, shared_buffer& b);

 private:
  class memory;
  // Maps `size` bytes of fd read-write; takes fd, closing it on failure.
  static std::shared_ptr<memory> map(int fd, std::size_t size);
  void check_multiple_of(std::size_t element) const;
  std::shared_ptr<memory> memory_;
};

}  // namespace ferry

#endif  // FERRY_SERIALIZE_SHARED_BUFFER_H_
