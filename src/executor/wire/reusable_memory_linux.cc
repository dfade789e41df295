// Copyright ferry authors.
#include "executor/wire/reusable_memory_linux.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "executor/wire/message_io.h"
#include "executor/wire/protocol.h"
#include "executor/wire/shared_memory_linux.h"

namespace ferry::detail {
namespace {

std::atomic_ref<std::uint32_t> control_word(char* base) {
  return std::atomic_ref<std::uint32_t>(*reinterpret_cast<std::uint32_t*>(base));
}
static_assert(std::atomic_ref<std::uint32_t>::is_always_lock_free,
              "the control word is shared between processes: it must not need a lock");

// Room is made in whole huge-page multiples, so that bodies of slightly
// different sizes reuse one file.
constexpr std::size_t room_step = std::size_t{2} << 20;

}  // namespace

bool reusable_buffers::busy(const buffer& b) {
  return control_word(b.base).load(std::memory_order_acquire) != 0;
}

void reusable_buffers::release(buffer& b) {
  ::munmap(b.base, reusable_body_offset + b.capacity);
  ::close(b.fd);
}

reusable_buffers::~reusable_buffers() {
  for (buffer& b : buffers_) release(b);
}

void reusable_buffers::append_descriptors(std::vector<int>& out) const {
  for (const buffer& b : buffers_) out.push_back(b.fd);
}

int reusable_buffers::put(std::string_view body) {
  buffer* use = nullptr;
  for (buffer& b : buffers_)
    if (b.capacity >= body.size() && !busy(b) && (use == nullptr || b.capacity < use->capacity)) use = &b;
  if (use == nullptr) {
    // A new file, in a free place or in place of the smallest idle one.
    auto slot = buffers_.end();
    if (buffers_.size() >= max_buffers) {
      for (auto it = buffers_.begin(); it != buffers_.end(); ++it)
        if (!busy(*it) && (slot == buffers_.end() || it->capacity < slot->capacity)) slot = it;
      if (slot == buffers_.end()) return -1;
    }
    const std::size_t capacity = (body.size() + room_step - 1) / room_step * room_step;
    unique_fd fd(::memfd_create("ferry-reusable", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!fd) return -1;
    void* base = MAP_FAILED;
    if (::ftruncate(fd.get(), static_cast<off_t>(reusable_body_offset + capacity)) == 0 &&
        ::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK) == 0)
      base = ::mmap(nullptr, reusable_body_offset + capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (base == MAP_FAILED) return -1;
    (void)::madvise(base, reusable_body_offset + capacity, MADV_DONTFORK);
    const buffer made{fd.release(), static_cast<char*>(base), capacity};  // released with the buffer
    if (slot == buffers_.end()) {
      buffers_.push_back(made);
      use = &buffers_.back();
    } else {
      release(*slot);
      *slot = made;
      use = &*slot;
    }
  }
  if (!body.empty()) std::memcpy(use->base + reusable_body_offset, body.data(), body.size());
  control_word(use->base).store(1, std::memory_order_release);
  return use->fd;
}

struct reusable_mappings::mapping {
  std::string identity;
  char* base = nullptr;
  std::size_t size = 0;
  ~mapping() {
    if (base != nullptr) ::munmap(base, size);
  }
};

namespace {

// A body in a reusable file; the file is the sender's to write again once
// the last reference to this goes.
class reusable_body final : public message_body {
 public:
  reusable_body(std::shared_ptr<reusable_mappings::mapping> m, std::size_t length)
      : mapping_(std::move(m)), length_(length) {}
  ~reusable_body() override;
  std::string_view view() const noexcept override;

 private:
  std::shared_ptr<reusable_mappings::mapping> mapping_;
  std::size_t length_;
};

}  // namespace

// Defined here, where reusable_mappings::mapping is complete.
reusable_body::~reusable_body() { control_word(mapping_->base).store(0, std::memory_order_release); }
std::string_view reusable_body::view() const noexcept {
  return {mapping_->base + reusable_body_offset, length_};
}

std::shared_ptr<const message_body> reusable_mappings::body(unique_fd fd, std::uint64_t length,
                                                             std::string& identity) {
  struct stat st {};
  const int seals = ::fcntl(fd.get(), F_GET_SEALS);
  if (::fstat(fd.get(), &st) != 0 || seals < 0 || (seals & F_SEAL_SHRINK) == 0 ||
      static_cast<std::uint64_t>(st.st_size) < reusable_body_offset ||
      static_cast<std::uint64_t>(st.st_size) - reusable_body_offset < length) {
    throw protocol_error("a reusable shared-memory body is not a memfd sealed against shrinking with room for " +
                         std::to_string(length) + " bytes");
  }
  identity = file_identity(st);
  const auto size = static_cast<std::size_t>(st.st_size);
  auto hit = std::find_if(cached_.begin(), cached_.end(), [&](const std::shared_ptr<mapping>& m) {
    return m->identity == identity && m->size >= reusable_body_offset + length;
  });
  std::shared_ptr<mapping> m;
  if (hit != cached_.end()) {
    m = *hit;
    cached_.erase(hit);
  } else {
    void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    const int e = errno;
    fd.reset();  // the mapping stays
    if (base == MAP_FAILED)
      throw protocol_error(std::string("mmap of a reusable message body: ") + std::strerror(e));
    (void)::madvise(base, size, MADV_DONTFORK);
    m = std::make_shared<mapping>();
    m->identity = identity;
    m->base = static_cast<char*>(base);
    m->size = size;
    // An older mapping of the same file (it grew) and the least recently
    // used ones nobody holds make room.
    std::erase_if(cached_, [&](const std::shared_ptr<mapping>& c) { return c->identity == identity && c.use_count() == 1; });
    while (cached_.size() >= max_mappings) {
      auto idle = std::find_if(cached_.begin(), cached_.end(),
                               [](const std::shared_ptr<mapping>& c) { return c.use_count() == 1; });
      if (idle == cached_.end()) break;
      cached_.erase(idle);
    }
  }
  if (cached_.size() < max_mappings) cached_.push_back(m);
  return std::make_shared<reusable_body>(std::move(m), static_cast<std::size_t>(length));
}

}  // namespace ferry::detail
