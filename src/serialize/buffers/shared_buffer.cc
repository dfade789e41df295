// Copyright ferry authors.
#include <serialize/shared_buffer.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "internal/unique_fd.h"
#include "serialize/frame/archive_access.h"
#include <serialize/error.h>
#include <serialize/internal/fd_list.h>

namespace ferry {

// The mapping and the descriptor that lets it be passed on; both go with
// the last handle in this process.
class shared_buffer::memory {
 public:
  memory(detail::unique_fd fd, std::byte* data, std::size_t size) : fd_(std::move(fd)), data_(data), size_(size) {}
  ~memory() { ::munmap(data_, size_); }
  memory(const memory&) = delete;
  memory& operator=(const memory&) = delete;

  int fd() const noexcept { return fd_.get(); }
  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  detail::unique_fd fd_;
  std::byte* data_;
  std::size_t size_;
};

namespace {

// Encodings of a buffer (docs/api/wire_format.md, "Shared buffers").
constexpr std::uint8_t by_value = 0;
constexpr std::uint8_t by_descriptor = 1;

[[noreturn]] void fail(const std::string& what, int e) {
  throw error("ferry::shared_buffer: " + what + ": " + std::strerror(e));
}

}  // namespace

std::shared_ptr<shared_buffer::memory> shared_buffer::map(int fd, std::size_t size) {
  detail::unique_fd owned(fd);
  void* data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, owned.get(), 0);
  if (data == MAP_FAILED) {
    const int e = errno;
    fail("mapping " + std::to_string(size) + " bytes", e);
  }
  try {
    return std::make_shared<shared_buffer::memory>(std::move(owned), static_cast<std::byte*>(data), size);
  } catch (...) {
    ::munmap(data, size);
    throw;
  }
}

shared_buffer::shared_buffer(std::size_t size) {
  if (size == 0) return;
  detail::unique_fd fd(::memfd_create("ferry-shared-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd) {
    const int e = errno;
    fail("memfd_create", e);
  }
  // Sealed at its size: a process it is passed to can then not shrink it
  // under another's mapping, where reading the lost pages would kill it.
  if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0 ||
      ::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    const int e = errno;
    fail("making " + std::to_string(size) + " bytes of shared memory", e);
  }
  memory_ = map(fd.release(), size);
}

std::byte* shared_buffer::data() const noexcept { return memory_ ? memory_->data() : nullptr; }
std::size_t shared_buffer::size() const noexcept { return memory_ ? memory_->size() : 0; }

void shared_buffer::check_multiple_of(std::size_t element) const {
  if (size() % element != 0)
    throw error("ferry::shared_buffer::as<T>: its " + std::to_string(size()) +
                " bytes are not a whole number of " + std::to_string(element) + "-byte elements");
}

void save(output_archive& ar, const shared_buffer& b) {
  const std::uint64_t size = b.size();
  detail::fd_list* passed = detail::archive_access::attachments(ar);
  if (passed == nullptr || size == 0) {
    ar(by_value, size);
    ar.saveBinary(b.data(), size);
    return;
  }
  const int fd = ::fcntl(b.memory_->fd(), F_DUPFD_CLOEXEC, 0);
  if (fd < 0) fail("passing its memory to another process (dup)", errno);
  const auto index = static_cast<std::uint32_t>(passed->size());
  passed->push_back(fd);
  ar(by_descriptor, size, index);
}

void load(input_archive& ar, shared_buffer& b) {
  const std::size_t at = ar.offset();
  std::uint8_t how;
  ar(how);
  if (how == by_value) {
    const std::uint64_t size = ar.load_count();
    const char* bytes = ar.take(static_cast<std::size_t>(size));
    shared_buffer copy(static_cast<std::size_t>(size));
    if (size != 0) std::memcpy(copy.data(), bytes, static_cast<std::size_t>(size));
    b = std::move(copy);
    return;
  }
  if (how != by_descriptor)
    throw format_error(at, "a ferry::shared_buffer has unknown encoding " + std::to_string(how));
  std::uint64_t size;
  std::uint32_t index;
  ar(size, index);
  const std::span<const int> passed = detail::archive_access::attachments(ar);
  if (index >= passed.size())
    throw format_error(at, "a ferry::shared_buffer names descriptor " + std::to_string(index) +
                               " of its message, which came with " + std::to_string(passed.size()) +
                               ": such bytes are read only from the pool message they came in "
                               "(ferry::dumps writes a shared_buffer's bytes instead)");
  const int fd = passed[index];
  struct stat st {};
  const int seals = ::fcntl(fd, F_GET_SEALS);
  if (::fstat(fd, &st) != 0 || seals < 0 || (seals & F_SEAL_SHRINK) == 0 ||
      static_cast<std::uint64_t>(st.st_size) != size || size == 0)
    throw format_error(at, "a ferry::shared_buffer's descriptor is not sealed shared memory of the " +
                               std::to_string(size) + " bytes its message states");
  const int mine = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (mine < 0) fail("keeping memory passed from another process (dup)", errno);
  shared_buffer mapped;
  mapped.memory_ = shared_buffer::map(mine, static_cast<std::size_t>(size));
  b = std::move(mapped);
}

}  // namespace ferry
