// Copyright ferry authors.
//
// The descriptors a message carries (src/serialize/buffers/fd_list.cc): a
// list that owns them, closing each exactly once.
#include <serialize/internal/fd_list.h>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <utility>

namespace {

int open_null() { return ::open("/dev/null", O_RDONLY | O_CLOEXEC); }
bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

}  // namespace

TEST(FdList, TheListClosesWhatItHoldsWhenItIsDestroyed) {
  int fd = -1;
  {
    ferry::detail::fd_list list;
    fd = open_null();
    list.push_back(fd);
    EXPECT_EQ(list.size(), 1u);
    EXPECT_EQ(list.view()[0], fd);
    EXPECT_TRUE(is_open(fd));
  }
  EXPECT_FALSE(is_open(fd));
}

TEST(FdList, ClearClosesEveryDescriptorAndEmptiesTheList) {
  ferry::detail::fd_list list;
  const int a = open_null(), b = open_null();
  list.push_back(a);
  list.push_back(b);
  list.clear();
  EXPECT_TRUE(list.empty());
  EXPECT_FALSE(is_open(a));
  EXPECT_FALSE(is_open(b));
}

TEST(FdList, AMovedListHandsOverItsDescriptorsWithoutClosingThem) {
  ferry::detail::fd_list from;
  const int fd = open_null();
  from.push_back(fd);
  ferry::detail::fd_list to(std::move(from));
  EXPECT_TRUE(from.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_TRUE(is_open(fd));
  ferry::detail::fd_list assigned;
  const int other = open_null();
  assigned.push_back(other);
  assigned = std::move(to);
  EXPECT_FALSE(is_open(other));  // what `assigned` held before is closed
  EXPECT_TRUE(is_open(fd));
  assigned.clear();
  EXPECT_FALSE(is_open(fd));
}
