// Copyright ferry authors.
//
// ferry::output_archive and ferry::input_archive are the cereal archives that
// ferry::dumps and ferry::loads use. Most users never name them. A class that
// cannot have member templates (a class defined inside a function) makes
// itself shippable with one overload per archive:
//
//   struct scale {
//     double factor;
//     double operator()(double x) const { return x * factor; }
//     void serialize(ferry::output_archive& ar) { ar(factor); }
//     void serialize(ferry::input_archive& ar) { ar(factor); }
//   };
//
// The encoding is cereal's binary layout (little-endian, u64 sizes) with one
// difference that matters for hostile input: every length read from the bytes
// is checked against the bytes actually left, so no length field can make the
// reader allocate more than the input's size. Errors are ferry::format_error
// naming the offset.
//
// Thread-safety: an archive is used by one thread at a time.
#ifndef FERRY_SERIALIZE_ARCHIVE_H_
#define FERRY_SERIALIZE_ARCHIVE_H_

#include <cereal/cereal.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "serialize/error.h"
#include "serialize/internal/config.h"
#include "serialize/internal/large_buffers.h"

namespace ferry {

class output_archive;
class input_archive;

namespace detail {
struct module_record;
struct archive_access;
class fd_list;

// A pool's message: ferry::shared_buffer values written to `ar` pass their
// memory as descriptors added to `fds` (which must outlive the archive's
// use) rather than as bytes.
inline void attach_to(output_archive& ar, fd_list* fds) noexcept;
// The descriptors that came with the bytes `ar` reads; they must stay open
// while it reads.
inline void read_attached(input_archive& ar, std::span<const int> fds) noexcept;

// A module named in a payload being read: where the bytes say it is, and
// the loaded module once something needed it.
// Views into the bytes being read, which outlive the archive.
struct named_module {
  std::string_view path;
  std::string_view build_id;  // raw
  const module_record* record = nullptr;
  bool referenced = false;  // by a record read so far
};
}  // namespace detail

// Appends to a std::string owned by the caller, who must keep it alive for
// the archive's lifetime.
class output_archive : public cereal::OutputArchive<output_archive, cereal::AllowEmptyClassElision> {
 public:
  explicit output_archive(std::string& out)
      : cereal::OutputArchive<output_archive, cereal::AllowEmptyClassElision>(this), out_(out) {}

  void saveBinary(const void* data, std::size_t size) {
    if (size >= detail::large_buffer_bytes) [[unlikely]] {
      // With room for what usually follows (a frame's module directory):
      // one byte more than the value would double the string into fresh
      // memory and copy the value again (ferry::dumps of a 64 MiB string).
      out_.reserve(out_.size() + size + detail::room_after_large_value);
      detail::advise_huge_pages(out_.data(), out_.capacity());
    }
    out_.append(static_cast<const char*>(data), size);
  }

 private:
  friend struct detail::archive_access;
  friend void detail::attach_to(output_archive& ar, detail::fd_list* fds) noexcept;
  std::string& out_;
  std::vector<const detail::module_record*> modules_;  // named so far in this payload
  std::size_t depth_ = 0;  // nesting of ferry::function values being written
  bool needs_main_program_ = false;  // some code can only run from this executable
  bool listed_at_end_ = false;  // modules go in a directory after the value (frames)
  // Where a ferry::shared_buffer passes its memory's descriptor instead of
  // its bytes: set for a pool's messages only (detail::attach_to).
  detail::fd_list* attachments_ = nullptr;
};

// Reads from bytes owned by the caller, who must keep them alive for the
// archive's lifetime. base_offset is added to positions in error messages
// (ferry::loads passes the header size so offsets are frame offsets).
class input_archive : public cereal::InputArchive<input_archive, cereal::AllowEmptyClassElision> {
 public:
  explicit input_archive(std::string_view bytes, std::size_t base_offset = 0)
      : cereal::InputArchive<input_archive, cereal::AllowEmptyClassElision>(this),
        begin_(bytes.data()),
        pos_(bytes.data()),
        end_(bytes.data() + bytes.size()),
        base_offset_(base_offset) {}

  // Throws ferry::format_error if fewer than `size` bytes are left.
  void loadBinary(void* data, std::size_t size) {
    if (size > remaining()) [[unlikely]]
      detail::throw_truncated(offset(), size, remaining());
    if (size != 0) std::memcpy(data, pos_, size);
    pos_ += size;
  }

  // Moves past `size` bytes; throws ferry::format_error if fewer are left.
  void skip(std::size_t size) {
    if (size > remaining()) [[unlikely]]
      detail::throw_truncated(offset(), size, remaining());
    pos_ += size;
  }

  std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - pos_); }

  // Position of the next byte, counted from the start of the frame.
  std::size_t offset() const noexcept { return base_offset_ + static_cast<std::size_t>(pos_ - begin_); }

  // Moves past `size` bytes and returns where they start, for reading them
  // in place; throws ferry::format_error if fewer are left.
  const char* take(std::size_t size) {
    const char* at = pos_;
    skip(size);
    return at;
  }

  // Reads a u64 element count and checks that that many elements of at least
  // one byte each could still follow.
  std::uint64_t load_count() {
    const std::size_t at = offset();
    std::uint64_t n;
    loadBinary(&n, sizeof n);
    if (n > remaining()) [[unlikely]]
      detail::throw_bad_length(at, n, remaining());
    return n;
  }

 private:
  friend struct detail::archive_access;
  friend void detail::read_attached(input_archive& ar, std::span<const int> fds) noexcept;
  const char* begin_;
  const char* pos_;
  const char* end_;
  std::size_t base_offset_;
  std::size_t depth_ = 0;  // nesting of ferry::function values being read
  std::vector<detail::named_module> modules_;  // named so far, or listed by a directory
  bool listed_at_end_ = false;  // modules_ came from the payload's directory
  // The source of these bytes vouches for the modules they name, which may
  // then be loaded from their recorded paths (detail::vouch_for_modules).
  bool vouched_ = false;
  // The descriptors that came beside these bytes, which a ferry::shared_buffer
  // in them may name (detail::read_attached).
  std::span<const int> attachments_;
};


namespace detail {
inline void attach_to(output_archive& ar, fd_list* fds) noexcept { ar.attachments_ = fds; }
inline void read_attached(input_archive& ar, std::span<const int> fds) noexcept { ar.attachments_ = fds; }
}  // namespace detail

// cereal's hooks for the primitives; found by argument-dependent lookup.
template <class T>
  requires std::is_arithmetic_v<T>
void save(output_archive& ar, const T& t) {
  ar.saveBinary(std::addressof(t), sizeof t);
}
template <class T>
  requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
void load(input_archive& ar, T& t) {
  ar.loadBinary(std::addressof(t), sizeof t);
}
// A bool is one byte, 0 or 1; any other is refused with ferry::format_error
// (copied into a bool, it would make reading it undefined).
inline void load(input_archive& ar, bool& b) {
  const std::size_t at = ar.offset();
  unsigned char byte = 0;
  ar.loadBinary(&byte, 1);
  if (byte > 1) [[unlikely]]
    detail::throw_bad_bool(at, byte);
  b = byte != 0;
}
template <class T>
void save(output_archive& ar, const cereal::BinaryData<T>& bd) {
  ar.saveBinary(bd.data, static_cast<std::size_t>(bd.size));
}
template <class T>
void load(input_archive& ar, cereal::BinaryData<T>& bd) {
  ar.loadBinary(bd.data, static_cast<std::size_t>(bd.size));
}
// A string of bytes is copied once, straight from the payload: cereal's own
// load zero-fills it first, a second pass over a 64 MiB argument. The same
// bytes as cereal's: a u64 size, then the characters.
template <class CharT, class Traits, class Alloc>
  requires(sizeof(CharT) == 1)
void load(input_archive& ar, std::basic_string<CharT, Traits, Alloc>& s) {
  const std::uint64_t n = ar.load_count();
  const auto* from = reinterpret_cast<const CharT*>(ar.take(static_cast<std::size_t>(n)));
  if (n >= detail::large_buffer_bytes) [[unlikely]] {
    s.clear();
    s.reserve(static_cast<std::size_t>(n));
    detail::advise_huge_pages(s.data(), s.capacity());
  }
  s.assign(from, static_cast<std::size_t>(n));
}
// The same for a vector of numbers (cereal's bytes: a u64 count, then the
// elements): fresh memory for a large one is offered huge pages before it
// is first touched.
template <class T, class A>
  requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
void load(input_archive& ar, std::vector<T, A>& v) {
  const std::uint64_t n = ar.load_count();
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);  // n <= bytes left: no overflow
  const char* from = ar.take(bytes);
  v.clear();
  if (bytes >= detail::large_buffer_bytes) [[unlikely]] {
    v.reserve(static_cast<std::size_t>(n));
    detail::advise_huge_pages(v.data(), v.capacity() * sizeof(T));
  }
  v.resize(static_cast<std::size_t>(n));
  if (bytes != 0) std::memcpy(v.data(), from, bytes);
}
template <class T>
void save(output_archive& ar, const cereal::SizeTag<T>& t) {
  const std::uint64_t n = t.size;
  ar.saveBinary(&n, sizeof n);
}
template <class T>
void load(input_archive& ar, cereal::SizeTag<T>& t) {
  t.size = static_cast<std::remove_reference_t<T>>(ar.load_count());
}
template <class T>
void save(output_archive& ar, const cereal::NameValuePair<T>& t) {
  ar(t.value);
}
template <class T>
void load(input_archive& ar, cereal::NameValuePair<T>& t) {
  ar(t.value);
}

}  // namespace ferry

CEREAL_REGISTER_ARCHIVE(ferry::output_archive)
CEREAL_REGISTER_ARCHIVE(ferry::input_archive)
CEREAL_SETUP_ARCHIVE_TRAITS(ferry::input_archive, ferry::output_archive)

#endif  // FERRY_SERIALIZE_ARCHIVE_H_
