// Copyright ferry authors.
//
// src/mpi/mpi_job.cc: this process's place in its MPI job, here a job of
// one rank (singleton_mpi.h): rank 0, no agent, its host named, a doorbell
// of its own in memory whose name is gone once shared, a stop that has no
// other rank to tell, and the hook rank 0's exit calls. Jobs of several ranks are mpi_pool_test's.
#include "mpi/mpi_job.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <serialize/error.h>

#include "singleton_mpi.h"

namespace {

namespace mpi = ferry::detail::mpi;

TEST(MpiJob, AJobOfOneRankIsRankZeroWithNoAgentAndItsHostNamed) {
  ferry_test::ensure_mpi();
  mpi::join_job(MPI_COMM_SELF);
  const mpi::job& j = mpi::this_job();
  EXPECT_EQ(j.rank, 0);
  EXPECT_EQ(j.size, 1);
  EXPECT_TRUE(j.agents.empty()) << "rank 0 is never its host's agent";
  EXPECT_FALSE(j.is_agent());
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(j.host, host);
  EXPECT_EQ(j.host_ranks, std::vector<int>{0});
}

TEST(MpiJob, EachRankOfTheHostHasADoorbellInMemoryWhoseNameIsGone) {
  ferry_test::ensure_mpi();
  mpi::join_job(MPI_COMM_SELF);
  const mpi::job& j = mpi::this_job();
  ASSERT_NE(j.bells, nullptr) << "no shared memory for the doorbells";
  EXPECT_EQ(j.bell_of(0), j.bells);
  EXPECT_EQ(j.bell_of(1), nullptr) << "a rank of another host has none here";
  // Shared, then unlinked: a job however it ends leaves no name behind.
  const std::string mine = "ferry-bells-" + std::to_string(::getpid()) + "-";
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm"))
    EXPECT_NE(entry.path().filename().string().rfind(mine, 0), 0u) << entry.path();
}

TEST(MpiJob, APoolBeginsOnlyWhenNoneRunsAndNoRankWasLost) {
  mpi::job j;
  mpi::begin_pool(j);
  EXPECT_EQ(j.pool.load(), mpi::job::pool_phase::running);
  try {
    mpi::begin_pool(j);
    FAIL() << "a second pool began while one ran";
  } catch (const ferry::error& e) {
    EXPECT_NE(std::string(e.what()).find("still running"), std::string::npos) << e.what();
  }
  mpi::end_pool(j);
  EXPECT_EQ(j.pool.load(), mpi::job::pool_phase::idle);
  mpi::begin_pool(j);  // the next pool
  mpi::end_pool(j, {3});
  EXPECT_EQ(j.lost, std::vector<int>{3});
  try {
    mpi::begin_pool(j);
    FAIL() << "a pool began in a job that lost a rank";
  } catch (const ferry::error& e) {
    EXPECT_NE(std::string(e.what()).find("MPI rank 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("start a new job"), std::string::npos) << e.what();
  }
}

TEST(MpiJob, NoPoolBeginsOnceTheJobIsEnding) {
  mpi::job j;
  j.pool = mpi::job::pool_phase::job_ending;
  EXPECT_THROW(mpi::begin_pool(j), ferry::error);
  mpi::end_pool(j);  // a pool's end never revives an ending job
  EXPECT_EQ(j.pool.load(), mpi::job::pool_phase::job_ending);
}

TEST(MpiJob, RanksExceptKeepsTheOthersInTheirOrder) {
  EXPECT_EQ(mpi::ranks_except({4, 1, 3, 2}, {3, 9}), (std::vector<int>{4, 1, 2}));
  EXPECT_EQ(mpi::ranks_except({1, 2}, {}), (std::vector<int>{1, 2}));
  EXPECT_TRUE(mpi::ranks_except({1, 2}, {2, 1}).empty());
}

TEST(MpiJob, TheExitHookIsClearedOnlyByThePoolThatSetItAndDropsWhatItThrows) {
  mpi::exit_hook hook;
  hook.run();  // none set: nothing to call
  int first = 0, second = 0;
  hook.set(&first, [&] { ++first; });
  hook.set(&second, [&] { ++second; });  // a later pool takes it over
  hook.clear(&first);                    // the earlier pool's destruction
  hook.run();
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
  hook.clear(&second);
  hook.run();
  EXPECT_EQ(second, 1);
  hook.set(&first, [] { throw std::runtime_error("shutting down failed"); });
  EXPECT_NO_THROW(hook.run());
}

TEST(MpiJob, StoppingNoRankReturnsAtOnce) {
  ferry_test::ensure_mpi();
  mpi::join_job(MPI_COMM_SELF);
  mpi::stop_ranks({}, false);
  mpi::stop_ranks({}, true);
  EXPECT_EQ(mpi::this_job().pool.load(), mpi::job::pool_phase::idle);
}

}  // namespace
