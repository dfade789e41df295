// Copyright ferry authors.
//
// ferry::shared_buffer in ferry's archives (docs/api/wire_format.md,
// "Shared buffers"): by value where no descriptor can travel, by
// descriptor in a pool's messages, and bytes that lie about either.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <serialize/serialize.h>
#include <serialize/internal/fd_list.h>

namespace {

ferry::shared_buffer filled(std::size_t size, int value) {
  ferry::shared_buffer b(size);
  std::memset(b.data(), value, size);
  return b;
}

std::string written(const ferry::shared_buffer& b, ferry::detail::fd_list* passed) {
  std::string bytes;
  ferry::output_archive ar(bytes);
  ferry::detail::attach_to(ar, passed);
  ar(b);
  return bytes;
}

ferry::shared_buffer read(const std::string& bytes, std::span<const int> passed = {}) {
  ferry::input_archive ar(bytes);
  ferry::detail::read_attached(ar, passed);
  ferry::shared_buffer b;
  ar(b);
  return b;
}

// A memfd of `size` bytes; sealed against shrinking if `seal`.
int memfd(std::size_t size, bool seal) {
  const int fd = ::memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
  if (seal) {
    EXPECT_EQ(::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
  }
  return fd;
}

template <class F>
std::string format_error_of(F&& f) {
  try {
    f();
  } catch (const ferry::format_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ferry::format_error";
  return {};
}

}  // namespace

TEST(SharedBuffer, ANewBufferIsZeroFilledAndCopiesShareIt) {
  ferry::shared_buffer b(10000);
  ASSERT_EQ(b.size(), 10000u);
  for (std::byte x : b.bytes()) ASSERT_EQ(x, std::byte{0});
  ferry::shared_buffer c = b;
  c.data()[5] = std::byte{9};
  EXPECT_EQ(b.data()[5], std::byte{9});
  EXPECT_TRUE(b == c);
  EXPECT_TRUE(ferry::shared_buffer().empty());
  EXPECT_TRUE(ferry::shared_buffer(0).empty());
}

TEST(SharedBuffer, AsViewsWholeElementsOnly) {
  ferry::shared_buffer b(4096);
  EXPECT_EQ(b.as<double>().size(), 512u);
  EXPECT_EQ(static_cast<void*>(b.as<double>().data()), static_cast<void*>(b.data()));
  ferry::shared_buffer odd(10);
  try {
    static_cast<void>(odd.as<double>());
    ADD_FAILURE() << "no ferry::error";
  } catch (const ferry::error& e) {
    EXPECT_NE(std::string(e.what()).find("not a whole number of 8-byte elements"), std::string::npos);
  }
}

TEST(SharedBuffer, DumpsWritesItsBytesAndLoadsMakesACopy) {
  const ferry::shared_buffer b = filled(3000, 5);
  const std::vector<ferry::shared_buffer> v{b, ferry::shared_buffer()};
  const auto back = ferry::loads<std::vector<ferry::shared_buffer>>(ferry::dumps(v));
  ASSERT_EQ(back.size(), 2u);
  ASSERT_EQ(back[0].size(), 3000u);
  EXPECT_EQ(std::memcmp(back[0].data(), b.data(), 3000), 0);
  EXPECT_FALSE(back[0] == b);  // its own memory
  back[0].data()[0] = std::byte{1};
  EXPECT_EQ(b.data()[0], std::byte{5});
  EXPECT_TRUE(back[1].empty());
}

TEST(SharedBuffer, InAPoolMessageItTravelsAsADescriptorOfTheSameMemory) {
  const ferry::shared_buffer b = filled(1 << 20, 3);
  ferry::detail::fd_list passed;
  const std::string bytes = written(b, &passed);
  EXPECT_LT(bytes.size(), 32u);  // not the megabyte
  ASSERT_EQ(passed.size(), 1u);
  ferry::shared_buffer back = read(bytes, passed.view());
  ASSERT_EQ(back.size(), b.size());
  back.data()[7] = std::byte{8};
  EXPECT_EQ(b.data()[7], std::byte{8});
}

TEST(SharedBuffer, BytesNamingADescriptorThatDidNotComeWithThemAreRefused) {
  const ferry::shared_buffer b = filled(4096, 1);
  ferry::detail::fd_list passed;
  const std::string bytes = written(b, &passed);
  const std::string what = format_error_of([&] { read(bytes); });
  EXPECT_NE(what.find("names descriptor 0 of its message, which came with 0"), std::string::npos) << what;
}

TEST(SharedBuffer, ADescriptorThatIsNotSealedSharedMemoryOfTheStatedSizeIsRefused) {
  const ferry::shared_buffer b = filled(4096, 1);
  ferry::detail::fd_list passed;
  const std::string bytes = written(b, &passed);
  // A file the sender could shrink under the reader's mapping.
  const int unsealed = memfd(4096, false);
  EXPECT_NE(format_error_of([&] { read(bytes, std::span<const int>(&unsealed, 1)); }).find("not sealed shared memory"),
            std::string::npos);
  // Sealed, but smaller than the bytes claim.
  const int small = memfd(1024, true);
  EXPECT_NE(format_error_of([&] { read(bytes, std::span<const int>(&small, 1)); }).find("of the 4096 bytes"),
            std::string::npos);
  // A pipe is no memory at all.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  EXPECT_FALSE(format_error_of([&] { read(bytes, std::span<const int>(pipe_fds, 1)); }).empty());
  for (int fd : {unsealed, small, pipe_fds[0], pipe_fds[1]}) ::close(fd);
}

TEST(SharedBuffer, AnUnknownEncodingOrALyingLengthIsAFormatError) {
  std::string bytes(1, '\x07');
  EXPECT_NE(format_error_of([&] { read(bytes); }).find("unknown encoding 7"), std::string::npos);
  // By value, announcing 1 TiB in a few bytes: refused before allocating.
  bytes.assign(1, '\0');
  const std::uint64_t huge = std::uint64_t{1} << 40;
  bytes.append(reinterpret_cast<const char*>(&huge), sizeof huge);
  bytes.append("abc");
  EXPECT_FALSE(format_error_of([&] { read(bytes); }).empty());
}
