// Copyright ferry authors.
//
// The progress bar's line (src/executor/observe/progress_line.h); the bar on a real
// pseudo-terminal is tests/executor/progress_bar_test.py.
#include "executor/observe/progress_line.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace std::chrono_literals;
using ferry::detail::format_progress;

TEST(ProgressLine, AKnownTotalShowsPercentBarCountRateAndWhatIsLeft) {
  EXPECT_EQ(format_progress(450, 1000, 3s),
            "ferry map  45% [#########...........] 450/1000  150.0/s  0:03 elapsed  0:04 left");
}

TEST(ProgressLine, TheEndHasAFullBarAndNothingLeft) {
  EXPECT_EQ(format_progress(1000, 1000, 62s),
            "ferry map 100% [####################] 1000/1000  16.1/s  1:02 elapsed");
}

TEST(ProgressLine, AnUnknownTotalShowsTheCountAndRateOnly) {
  EXPECT_EQ(format_progress(25000, std::nullopt, 2s), "ferry map 25000  12.5k/s  0:02 elapsed");
}

TEST(ProgressLine, NothingDoneYetEstimatesNothing) {
  EXPECT_EQ(format_progress(0, 10, 0s), "ferry map   0% [....................] 0/10  0.0/s  0:00 elapsed");
  EXPECT_EQ(format_progress(0, 0, 0s), "ferry map 100% [####################] 0/0  0.0/s  0:00 elapsed");
}

TEST(ProgressLine, NotATerminalDrawsNothing) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    ferry::detail::progress_line line(fds[1], 10);
    EXPECT_FALSE(line.drawing());
    line.update(10, true);
  }
  close(fds[1]);
  char c;
  EXPECT_EQ(read(fds[0], &c, 1), 0);
  close(fds[0]);
}

// A rank of an MPI job: its stderr is the launcher's pipe, which relays it
// to the terminal (or log) the job was started from, so the bar is drawn
// there, once a second at most; a file is still left clean.
TEST(ProgressLine, InAnMpiJobTheLaunchersPipeGetsTheBarOnceASecond) {
  ASSERT_EQ(::setenv("PMIX_RANK", "0", 1), 0);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    ferry::detail::progress_line line(fds[1], 10);
    EXPECT_TRUE(line.drawing());
    line.update(1);
    line.update(2);  // within the second: not drawn
    line.update(10, true);
  }
  close(fds[1]);
  std::string drawn;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) drawn.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  EXPECT_NE(drawn.find(" 1/10"), std::string::npos) << drawn;
  EXPECT_EQ(drawn.find(" 2/10"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("10/10"), std::string::npos) << drawn;
  EXPECT_EQ(drawn.back(), '\n');

  std::FILE* log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  EXPECT_FALSE(ferry::detail::progress_line(fileno(log), 10).drawing());
  std::fclose(log);
  ::unsetenv("PMIX_RANK");
}
