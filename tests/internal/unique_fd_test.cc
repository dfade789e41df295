// Copyright ferry authors.
#include "internal/unique_fd.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <utility>

namespace ferry::detail {
namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

int open_null() { return ::open("/dev/null", O_RDONLY | O_CLOEXEC); }

TEST(UniqueFd, ItClosesItsDescriptorWhenDestroyedOrReset) {
  const int a = open_null();
  ASSERT_GE(a, 0);
  { unique_fd fd(a); EXPECT_TRUE(is_open(a)); }
  EXPECT_FALSE(is_open(a));
  unique_fd fd(open_null());
  const int b = fd.get();
  const int c = open_null();
  fd.reset(c);
  EXPECT_FALSE(is_open(b));
  EXPECT_EQ(fd.get(), c);
  fd.reset();
  EXPECT_FALSE(is_open(c));
  EXPECT_FALSE(fd);
}

TEST(UniqueFd, AMoveHandsOverOwnershipAndReleaseGivesItUp) {
  unique_fd a(open_null());
  const int raw = a.get();
  unique_fd b(std::move(a));
  EXPECT_FALSE(a);
  EXPECT_EQ(b.get(), raw);
  unique_fd c;
  c = std::move(b);
  EXPECT_EQ(c.get(), raw);
  EXPECT_TRUE(is_open(raw));
  const int mine = c.release();
  EXPECT_FALSE(c);
  c.reset();
  EXPECT_TRUE(is_open(mine)) << "released: not closed by its former owner";
  ::close(mine);
}

TEST(UniqueFd, ClosingOnAnErrorPathKeepsErrno) {
  unique_fd fd(open_null());
  errno = EMFILE;
  fd.reset();
  EXPECT_EQ(errno, EMFILE);
}

}  // namespace
}  // namespace ferry::detail
