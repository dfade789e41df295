// Copyright ferry authors.
#include "executor/wire/shared_memory_linux.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "executor/wire/message_io.h"
#include "executor/wire/protocol.h"

namespace ferry::detail {
namespace {

// A body in a shared-memory file, mapped read-only for its lifetime.
class mapped_body final : public message_body {
 public:
  mapped_body(void* data, std::size_t size) : data_(data), size_(size) {}
  ~mapped_body() override {
    if (size_ != 0) ::munmap(data_, size_);
  }
  std::string_view view() const noexcept override {
    return {static_cast<const char*>(data_), size_};
  }

 private:
  void* data_;
  std::size_t size_;
};

}  // namespace

unique_fd sealed_memfd(std::string_view bytes) {
  unique_fd mem(::memfd_create("ferry-message", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!mem) return mem;
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(mem.get(), p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return {};
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fcntl(mem.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) return {};
  return mem;
}

std::string file_identity(const struct stat& st) {
  const std::uint64_t id[2] = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  return std::string(reinterpret_cast<const char*>(id), sizeof id);
}

std::string file_identity(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw protocol_error(std::string("fstat of shared memory: ") + std::strerror(errno));
  return file_identity(st);
}

std::shared_ptr<const message_body> map_sealed_memfd(unique_fd fd, std::uint64_t length,
                                                     std::string& identity) {
  struct stat st {};
  const int seals = ::fcntl(fd.get(), F_GET_SEALS);
  // Without these seals the sender could shrink the file under our mapping.
  const int needed = F_SEAL_SHRINK | F_SEAL_WRITE;
  if (::fstat(fd.get(), &st) != 0 || seals < 0 || (seals & needed) != needed ||
      static_cast<std::uint64_t>(st.st_size) < length) {
    throw protocol_error("shared-memory body is not a sealed memfd of " +
                         std::to_string(length) + " bytes");
  }
  identity = file_identity(st);
  void* data = nullptr;
  if (length != 0) {
    data = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd.get(), 0);
    if (data == MAP_FAILED) throw protocol_error(std::string("mmap of a message body: ") + std::strerror(errno));
  }
  return std::make_shared<mapped_body>(data, length);
}

}  // namespace ferry::detail
