// Copyright ferry authors.
//
// A node agent (src/mpi/agent.h) as rank 0 sees it, under `mpirun -n 3`
// (rank 1 is the agent): its local pool's workers, their environment and
// initializer, the events it relays, the directory of shipped modules it
// keeps. Run as mpi_pool_test.cc is, one MPI job per test.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>
#include <executor/mpi_pool.h>

#include "../executor/event_recorder.h"
#include "../executor/test_harness.h"
#include "../executor/test_tasks.h"
#include "mpi_test_options.h"

using namespace std::chrono_literals;
using ferry_test::expect_error;
using ferry_test::get_within;
using mpi_test::observed;
using mpi_test::options;

// Workers recycled by max_tasks_per_worker on the host are told so, then
// as exited, and those that end with the pool as exited too, each with the
// host, as on the process pool
// (Events.AWorkerPastMaxTasksPerWorkerIsToldAsRecycledThenExited).
TEST(Agent, ItsObserverIsToldOfTheHostsWorkersStartedRecycledAndExited) {
  auto seen = std::make_shared<ferry_test::event_recorder>();
  auto o = observed(seen);
  o.local.max_workers = 1;
  o.local.max_tasks_per_worker = 1;
  std::vector<int> pids;
  std::string host;
  {
    ferry::mpi_pool pool(o);
    host = pool.hosts().at(0);
    for (int i = 0; i < 3; ++i) {
      auto f = pool.submit(test_tasks::pid());
      pids.push_back(get_within(f));
    }
  }
  using wk = ferry::worker_event::kind;
  const std::vector<ferry_test::recorded_worker> all = seen->workers();
  for (const int pid : pids) {
    std::vector<wk> life;
    for (const auto& e : all)
      if (e.pid == pid) {
        life.push_back(e.what);
        EXPECT_EQ(e.host, host);
        if (e.what == wk::recycled) {
          EXPECT_NE(e.why.find("max_tasks_per_worker"), std::string::npos) << e.why;
        }
      }
    EXPECT_EQ(life, (std::vector<wk>{wk::started, wk::recycled, wk::exited})) << "worker " << pid;
  }
}

namespace {

// The directories an agent made for shipped modules
// (src/mpi/modules_dir_linux.h): $TMPDIR/ferry-modules-<pid>.XXXXXX.
std::vector<std::filesystem::path> modules_dirs_of(int agent) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string prefix = "ferry-modules-" + std::to_string(agent) + ".";
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", ec))
    if (e.path().filename().string().starts_with(prefix)) out.push_back(e.path());
  return out;
}

}  // namespace

// Issue: every agent made /tmp/ferry-modules-<pid>, shipping or not, and
// left it after scancel. Without ship_modules it makes nothing; with it, a
// private directory holds the shipped module while the pool runs and is
// gone once the pool has shut down. (Signals: mpi.AJobEndedBySignalLeavesNothingBehind.)
// The pid of the agent whose worker runs a task of the test_tasks library.
int agent_running_a_task(ferry::mpi_pool& pool) {
  auto parent = pool.submit(test_tasks::parent_pid());
  return get_within(parent);
}

TEST(Agent, WithoutShipModulesAnAgentMakesNoDirectory) {
  ferry::mpi_pool pool(options());
  const int agent = agent_running_a_task(pool);
  ASSERT_GT(agent, 1);
  const std::vector<std::filesystem::path> dirs = modules_dirs_of(agent);
  EXPECT_TRUE(dirs.empty()) << dirs.front();
}

TEST(Agent, ShippedModulesAreKeptInAPrivateDirectoryUntilThePoolShutsDownAndTheAgentServesTheNext) {
  auto o = options();
  o.ship_modules = true;
  ferry::mpi_pool pool(o);
  const int agent = agent_running_a_task(pool);
  ASSERT_GT(agent, 1);
  const std::vector<std::filesystem::path> dirs = modules_dirs_of(agent);
  ASSERT_EQ(dirs.size(), 1u);
  std::size_t modules = 0;
  for (const auto& e : std::filesystem::directory_iterator(dirs.front()))
    modules += e.path().extension() == ".so" ? 1 : 0;
  EXPECT_EQ(modules, 1u) << "the test_tasks library, shipped";
  EXPECT_EQ(std::filesystem::status(dirs.front()).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  pool.shutdown();
  EXPECT_TRUE(modules_dirs_of(agent).empty()) << "left after shutdown: " << modules_dirs_of(agent).front();
  // The same agent serves the job's next pool, whose workers are not told
  // to search the directory that is gone (they refused to start when they were).
  ferry::mpi_pool next(options());
  EXPECT_EQ(agent_running_a_task(next), agent);
}

TEST(Agent, WorkersDoNotInheritTheLaunchersEnvironment) {
  ASSERT_NE(std::getenv("OMPI_COMM_WORLD_SIZE"), nullptr) << "not started by OpenMPI's mpirun";
  ferry::mpi_pool pool(options());
  auto f = pool.submit(test_tasks::getenv(), std::string("OMPI_COMM_WORLD_SIZE"));
  EXPECT_EQ(get_within(f), "<unset>");
}

TEST(Agent, TheInitializerRunsInTheAgentsWorkers) {
  ferry::mpi_pool_options o = options();
  o.local.initializer = test_tasks::initializer();
  ferry::mpi_pool pool(o);
  auto f = pool.submit(test_tasks::initialized());
  EXPECT_TRUE(get_within(f));
}

TEST(Agent, AFailingInitializerFailsTheTasksAsAStartError) {
  ferry::mpi_pool_options o = options();
  o.local.initializer = test_tasks::failing_initializer();
  ferry::mpi_pool pool(o);
  auto f = pool.submit(test_tasks::add(), 1, 2);
  const auto e = expect_error<ferry::worker_start_error>([&] { get_within(f); });
  EXPECT_NE(std::string(e.what()).find("no database"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("MPI rank 1"), std::string::npos) << e.what();
}

TEST(Agent, AnInitializerThatAbortsFailsTheTasksAtOnceAsAStartError) {
  ferry::mpi_pool_options o = options();
  o.local.initializer = test_tasks::aborting_initializer();
  ferry::mpi_pool pool(o);
  auto f = pool.submit(test_tasks::add(), 1, 2);
  const auto e = expect_error<ferry::worker_start_error>([&] { get_within(f, std::chrono::seconds(10)); });
  EXPECT_NE(std::string(e.what()).find("SIGABRT"), std::string::npos) << e.what();
}
