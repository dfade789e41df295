// Copyright ferry authors.
#include "mpi/doorbell_linux.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <new>
#include <thread>

namespace ferry::detail::mpi {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(Doorbell, ARingBetweenArmAndSleepIsNotLost) {
  doorbell bell;
  const std::uint32_t armed = bell.arm();
  bell.ring();
  const auto start = steady_clock::now();
  bell.sleep(armed, std::chrono::seconds(10));
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(bell.sleeping.load(), 0u);
}

TEST(Doorbell, UnrungASleepEndsAtItsTimeout) {
  doorbell bell;
  const auto start = steady_clock::now();
  bell.sleep(bell.arm(), milliseconds(20));
  const auto slept = steady_clock::now() - start;
  EXPECT_GE(slept, milliseconds(15));
  EXPECT_LT(slept, std::chrono::seconds(5));
}

TEST(Doorbell, SleepUnlessNewsReturnsAtOnceWithNewsAndElseSleepsUntilRung) {
  doorbell bell;
  auto start = steady_clock::now();
  bell.sleep_unless([] { return true; }, std::chrono::seconds(10));
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(bell.sleeping.load(), 0u) << "disarmed";
  std::thread ringer([&bell] {
    while (bell.sleeping.load() == 0) std::this_thread::yield();
    bell.ring();
  });
  start = steady_clock::now();
  bell.sleep_unless([] { return false; }, std::chrono::seconds(10));
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5)) << "the ring woke it";
  ringer.join();
  start = steady_clock::now();
  bell.sleep_unless([] { return false; }, milliseconds(20));
  EXPECT_GE(steady_clock::now() - start, milliseconds(15)) << "unrung, it slept its timeout";
}

TEST(Doorbell, ARingBeforeArmIsNotCountedForTheNextSleep) {
  doorbell bell;
  bell.ring();  // nobody slept: no wake-up is owed
  const auto start = steady_clock::now();
  bell.sleep(bell.arm(), milliseconds(20));
  EXPECT_GE(steady_clock::now() - start, milliseconds(15));
}

TEST(Doorbell, AnotherProcessRingsASleeperInSharedMemory) {
  void* at = ::mmap(nullptr, sizeof(doorbell), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(at, MAP_FAILED);
  auto* bell = new (at) doorbell;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const auto start = steady_clock::now();
    bell->sleep(bell->arm(), std::chrono::seconds(20));
    ::_exit(steady_clock::now() - start < std::chrono::seconds(10) ? 0 : 1);
  }
  const auto deadline = steady_clock::now() + std::chrono::seconds(10);
  while (bell->sleeping.load() == 0 && steady_clock::now() < deadline) std::this_thread::sleep_for(milliseconds(1));
  std::this_thread::sleep_for(milliseconds(20));  // into its futex wait, most likely
  bell->ring();
  int status = -1;
  for (int i = 0; i < 1500 && ::waitpid(child, &status, WNOHANG) == 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  if (status == -1) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "the ring did not wake the other process within 15 s";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "it slept past 10 s: the ring was lost";
  ::munmap(at, sizeof(doorbell));
}

}  // namespace
}  // namespace ferry::detail::mpi
