// Copyright ferry authors.
//
// Cutting a worker's output into lines (src/executor/observe/output_lines.h).
#include "executor/observe/output_lines.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

using ferry::detail::output_lines;

namespace {
struct collected {
  std::vector<std::string> lines;
  output_lines::sink sink() {
    return [this](std::string_view l) { lines.emplace_back(l); };
  }
};
}  // namespace

TEST(OutputLines, LinesSplitAcrossReadsComeOutWhole) {
  output_lines o;
  collected c;
  o.feed("hel", c.sink());
  EXPECT_TRUE(c.lines.empty());
  o.feed("lo\nwor", c.sink());
  o.feed("ld\n\nlast", c.sink());
  EXPECT_EQ(c.lines, (std::vector<std::string>{"hello", "world", ""}));
  o.finish(c.sink());
  EXPECT_EQ(c.lines.back(), "last");
  o.finish(c.sink());
  EXPECT_EQ(c.lines.size(), 4u);
}

TEST(OutputLines, ALineLongerThanTheLimitComesInPiecesOfTheLimit) {
  output_lines o;
  collected c;
  const std::string huge(output_lines::max_line * 2 + 10, 'x');
  o.feed(huge + "\n", c.sink());
  ASSERT_EQ(c.lines.size(), 3u);
  EXPECT_EQ(c.lines[0].size(), output_lines::max_line);
  EXPECT_EQ(c.lines[1].size(), output_lines::max_line);
  EXPECT_EQ(c.lines[2].size(), 10u);
}

TEST(OutputLines, DrainReadsAPipeUntilItIsEmptyThenUntilItCloses) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_NONBLOCK), 0);
  output_lines o;
  collected c;
  ASSERT_EQ(write(fds[1], "a\nb", 3), 3);
  EXPECT_TRUE(o.drain(fds[0], c.sink()));  // empty now, still open
  EXPECT_EQ(c.lines, (std::vector<std::string>{"a"}));
  close(fds[1]);
  EXPECT_FALSE(o.drain(fds[0], c.sink()));  // closed
  o.finish(c.sink());
  EXPECT_EQ(c.lines, (std::vector<std::string>{"a", "b"}));
  close(fds[0]);
}
