// Copyright ferry authors.
//
// src/executor/wire/shared_memory_linux.cc: large message bodies in sealed
// memfds. A receiver maps only a file the sender can no longer change, and
// knows it by an identity that stands for its content.
#include "executor/wire/shared_memory_linux.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "executor/wire/message_io.h"
#include "executor/wire/protocol.h"

namespace {

using ferry::detail::protocol_error;
using ferry::detail::unique_fd;

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 7 + 1);
  return s;
}

TEST(SharedMemoryLinux, ABodyMapsBackWithTheIdentityOfItsFile) {
  const std::string bytes = pattern(1 << 20);
  unique_fd fd = ferry::detail::sealed_memfd(bytes);
  ASSERT_TRUE(fd);
  const std::string before = ferry::detail::file_identity(fd.get());
  EXPECT_EQ(before.size(), 16u);
  std::string identity;
  const auto body = ferry::detail::map_sealed_memfd(std::move(fd), bytes.size(), identity);
  EXPECT_EQ(identity, before);
  EXPECT_EQ(body->view(), bytes);
}

TEST(SharedMemoryLinux, TheSenderCanNeitherWriteNorShrinkNorGrowTheFile) {
  unique_fd fd = ferry::detail::sealed_memfd(pattern(4096));
  ASSERT_TRUE(fd);
  errno = 0;
  EXPECT_EQ(::pwrite(fd.get(), "x", 1, 0), -1);
  EXPECT_EQ(errno, EPERM);
  EXPECT_NE(::ftruncate(fd.get(), 10), 0);
  EXPECT_NE(::ftruncate(fd.get(), 1 << 20), 0);
  EXPECT_EQ(::mmap(nullptr, 4096, PROT_WRITE, MAP_SHARED, fd.get(), 0), MAP_FAILED);
  EXPECT_NE(::fcntl(fd.get(), F_ADD_SEALS, 0), 0) << "the seals themselves can be changed";
}

TEST(SharedMemoryLinux, TwoFilesOfTheSameBytesHaveDifferentIdentities) {
  const unique_fd a = ferry::detail::sealed_memfd("same");
  const unique_fd b = ferry::detail::sealed_memfd("same");
  ASSERT_TRUE(a && b);
  EXPECT_NE(ferry::detail::file_identity(a.get()), ferry::detail::file_identity(b.get()));
}

TEST(SharedMemoryLinux, AnUnsealedFileIsRefused) {
  unique_fd fd(::memfd_create("not-sealed", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  ASSERT_TRUE(fd);
  ASSERT_EQ(::write(fd.get(), "abcd", 4), 4);
  std::string identity;
  EXPECT_THROW(ferry::detail::map_sealed_memfd(std::move(fd), 4, identity), protocol_error);
  EXPECT_TRUE(identity.empty());
}

TEST(SharedMemoryLinux, AFileShorterThanTheMessageSaysIsRefused) {
  unique_fd fd = ferry::detail::sealed_memfd(pattern(100));
  ASSERT_TRUE(fd);
  std::string identity;
  try {
    ferry::detail::map_sealed_memfd(std::move(fd), 101, identity);
    ADD_FAILURE() << "a file of 100 bytes was mapped as 101";
  } catch (const protocol_error& e) {
    EXPECT_NE(std::string(e.what()).find("sealed memfd of 101 bytes"), std::string::npos) << e.what();
  }
}

TEST(SharedMemoryLinux, AnEmptyBodyNeedsNoMapping) {
  unique_fd fd = ferry::detail::sealed_memfd("");
  ASSERT_TRUE(fd);
  std::string identity;
  const auto body = ferry::detail::map_sealed_memfd(std::move(fd), 0, identity);
  EXPECT_TRUE(body->view().empty());
  EXPECT_EQ(identity.size(), 16u);
}

TEST(SharedMemoryLinux, TheIdentityOfAClosedDescriptorIsAProtocolError) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  ::close(p[0]);
  ::close(p[1]);
  EXPECT_THROW(ferry::detail::file_identity(p[0]), protocol_error);
}

}  // namespace
