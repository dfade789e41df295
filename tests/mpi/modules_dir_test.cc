// Copyright ferry authors.
//
// The private directory where an MPI agent keeps the modules rank 0 ships
// it (src/mpi/modules_dir_linux.cc): made fresh and private under TMPDIR,
// removed with its contents by its owner, and by its guard process when
// the agent ends without destroying it.
#include "mpi/modules_dir_linux.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "../temp_dir.h"

namespace fs = std::filesystem;
using ferry::detail::mpi::modules_dir;

namespace {

// TMPDIR set to `dir` for the lifetime of the object.
struct tmpdir_set {
  std::string old;
  bool had;
  explicit tmpdir_set(const fs::path& dir) {
    const char* v = std::getenv("TMPDIR");
    had = v != nullptr;
    if (had) old = v;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~tmpdir_set() {
    if (had) ::setenv("TMPDIR", old.c_str(), 1); else ::unsetenv("TMPDIR");
  }
};

bool gone_within(const fs::path& p, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (fs::exists(p)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace

TEST(ModulesDir, ItIsAFreshPrivateDirectoryUnderTmpdirNamedForThisProcess) {
  ferry_test::temp_dir tmp;
  tmpdir_set set(tmp.path());
  modules_dir a, b;
  EXPECT_EQ(a.path().parent_path(), tmp.path());
  EXPECT_EQ(a.path().filename().string().rfind("ferry-modules-" + std::to_string(::getpid()) + ".", 0), 0u)
      << a.path();
  EXPECT_NE(a.path(), b.path());
  struct stat st {};
  ASSERT_EQ(::stat(a.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(ModulesDir, ItsOwnerRemovesItWithWhatItHoldsAndReapsTheGuard) {
  ferry_test::temp_dir tmp;
  tmpdir_set set(tmp.path());
  fs::path path;
  pid_t guard = -1;
  {
    modules_dir dir;
    path = dir.path();
    guard = dir.guard();
    std::ofstream(path / "libshipped.so") << "bytes";  // shipped modules are files
    std::ofstream(path / "libother.so") << "bytes";
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(::kill(guard, 0), -1);  // reaped: no such process
}

// As when mpirun kills the agent: no destructor runs.
TEST(ModulesDir, ItsGuardRemovesItWhenTheAgentDiesWithoutDestroyingIt) {
  ferry_test::temp_dir tmp;
  tmpdir_set set(tmp.path());
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t agent = ::fork();
  ASSERT_GE(agent, 0);
  if (agent == 0) {
    ::close(report[0]);
    auto* dir = new modules_dir();  // never destroyed
    std::ofstream(dir->path() / "libshipped.so") << "bytes";
    const std::string path = dir->path().string();
    (void)::write(report[1], path.data(), path.size());
    ::close(report[1]);
    ::pause();
    ::_exit(0);
  }
  ::close(report[1]);
  char buf[4096];
  const ssize_t n = ::read(report[0], buf, sizeof buf);
  ::close(report[0]);
  ASSERT_GT(n, 0);
  const fs::path path(std::string(buf, static_cast<std::size_t>(n)));
  ASSERT_TRUE(fs::exists(path / "libshipped.so"));
  ::kill(agent, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(agent, &status, 0), agent);
  EXPECT_TRUE(gone_within(path, std::chrono::seconds(10))) << path;
}
