// Copyright ferry authors.
//
// A worker's heap (src/executor/worker/kept_heap.h): the memory of a large
// value freed by one task stays for the next, until give_back returns it.
// kept_heap changes the allocator of the whole process it is made in, and
// glibc serves a thread from the heap only while no other thread took its
// arena: each case runs in a fresh process, this program run again for
// that one test, as a worker's serving thread would (its main thread).
#include "executor/worker/kept_heap.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "sanitizer_skips.h"

extern char** environ;

namespace {

using ferry::detail::kept_heap;

constexpr std::size_t mib = std::size_t{1} << 20;
constexpr const char* child_variable = "FERRY_KEPT_HEAP_TEST_CHILD";

// This process's resident anonymous memory (RssAnon in its status).
std::size_t anonymous_resident_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("RssAnon:", 0) == 0) return std::stoul(line.substr(8)) * 1024;
  return 0;
}

// In the process this test runs in: runs this program again for the
// current test alone, where `check` runs, and returns its exit status (the
// number of the first expectation that failed; 0: none). In that process:
// exits with what `check` returns.
template <class Check>
int in_fresh_process(Check check) {
  if (std::getenv(child_variable) != nullptr) std::_Exit(check());
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string filter = std::string("--gtest_filter=") + test->test_suite_name() + "." + test->name();
  std::string self = "/proc/self/exe";
  char* argv[] = {self.data(), filter.data(), nullptr};
  // This environment and the variable, without setenv: other threads of
  // this program may read the environment meanwhile. Without GoogleTest's
  // shard variables (tests/ferry_add_test.cmake), which could leave this
  // test out of the child's shard.
  std::string mark = std::string(child_variable) + "=1";
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (!entry.starts_with("GTEST_TOTAL_SHARDS=") && !entry.starts_with("GTEST_SHARD_INDEX=")) env.push_back(*e);
  }
  env.push_back(mark.data());
  env.push_back(nullptr);
  pid_t child = -1;
  const int spawned = ::posix_spawn(&child, self.c_str(), nullptr, nullptr, argv, env.data());
  int status = 0;
  if (spawned != 0 || ::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// A 64 MiB block written and freed, as a task's argument would be.
void use_and_free_64_mib() {
  char* block = static_cast<char*>(std::malloc(64 * mib));
  std::memset(block, 'v', 64 * mib);
  // The compiler must not drop the block, which nothing reads.
  asm volatile("" : : "r"(block) : "memory");
  std::free(block);
}

TEST(KeptHeap, ALargeBlockFreedStaysInMemoryUntilGivenBack) {
  SKIP_UNDER_SANITIZER(ferry_test::sanitizer_skip::allocator);
  EXPECT_EQ(in_fresh_process([] {
              kept_heap heap;
              if (heap.may_hold_much()) return 1;
              const std::size_t before = anonymous_resident_bytes();
              use_and_free_64_mib();
              if (!heap.may_hold_much()) return 2;
              if (anonymous_resident_bytes() < before + 60 * mib) return 3;  // kept
              heap.give_back();
              if (anonymous_resident_bytes() > before + 4 * mib) return 4;  // given back
              if (heap.may_hold_much()) return 5;
              return 0;
            }),
            0);
}

TEST(KeptHeap, WithoutItALargeBlockFreedLeavesAtOnce) {
  SKIP_UNDER_SANITIZER(ferry_test::sanitizer_skip::allocator);
  EXPECT_EQ(in_fresh_process([] {
              const std::size_t before = anonymous_resident_bytes();
              use_and_free_64_mib();
              return anonymous_resident_bytes() > before + 4 * mib ? 1 : 0;
            }),
            0);
}

}  // namespace
