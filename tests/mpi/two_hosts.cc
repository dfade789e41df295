// Copyright ferry authors.
//
// Rank 0 of the two-host scenario (tests/mpi/two_hosts_test.sh): the agent
// runs on the other "host", a network namespace where the test plugin's
// directory is hidden. Prints what happened, one fact per line.
//
//   two_hosts [--ship]
//   two_hosts --ship-dependent   (a shipped plugin whose own dependency
//                                 the second host lacks)
//   two_hosts --lose-agent   (three ranks: an agent on each host; the
//                             second host's agent is stopped by a task)
//   two_hosts --ship-to-both (three ranks: a plugin task for each agent,
//                             the module read once and sent to both)
//   two_hosts --actor        (an actor on the second host, restarted there)
#include <dlfcn.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <vector>

#include <chrono>
#include <iostream>
#include <memory>
#include <set>
#include <string>

#include <executor/mpi_pool.h>
#include <serialize/dumps.h>

#include "../executor/test_tasks.h"

using namespace std::chrono_literals;

namespace {

// One line in one write: mpirun forwards this process's standard error and
// output separately, and the test reads them merged, line by line.
void say_on_stderr(const std::string& line) {
  const std::string whole = line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(2, whole.data(), whole.size());
}

// Every scenario's pool: one worker per agent, modules shipped or not.
ferry::mpi_pool_options one_worker_per_agent(bool ship_modules) {
  ferry::mpi_pool_options o;
  o.local.max_workers = 1;
  o.ship_modules = ship_modules;
  return o;
}

std::string host_name() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

// The second host's agent falls silent (SIGSTOP, as a hung or frozen node
// would); its tasks must fail once agent_timeout passes, and the pool must
// go on with the first host.
int lose_agent() {
  ferry::mpi_pool_options o = one_worker_per_agent(false);
  o.agent_timeout = std::chrono::seconds(3);
  ferry::mpi_pool pool(o);
  const ferry::function<std::string(int)> stop_agent_on_second_host = [](int) {
    if (host_name() == "ferry-h2") {
      ::kill(::getppid(), SIGSTOP);  // the worker's parent is its agent
      ::sleep(1);
    }
    return host_name();
  };
  std::vector<ferry::future<std::string>> futures;
  for (int i = 0; i < 8; ++i) futures.push_back(pool.submit(stop_agent_on_second_host, i));
  int lost = 0, ran = 0;
  for (auto& f : futures) {
    if (f.wait_for(60s) != std::future_status::ready) return 3;
    try {
      f.get();
      ++ran;
    } catch (const ferry::worker_died_error& e) {
      if (std::string(e.what()).find("lost with its MPI agent on host ferry-h2") != std::string::npos) ++lost;
    }
  }
  std::cout << (lost > 0 ? "tasks on the silent host failed" : "no task failed") << "\n";
  std::cout << (lost + ran == 8 ? "every task ended" : "a task ended otherwise") << "\n";
  auto after = pool.submit(stop_agent_on_second_host, 0);
  if (after.wait_for(60s) != std::future_status::ready) return 3;
  std::cout << "after: ran on " << (after.get() == "ferry-h2" ? "the lost host" : "the other host") << std::endl;
  return 0;
}

// The "lambda" closure of a test plugin that this process loads (and only
// this host has); exits with status 2 when the plugin cannot be loaded.
ferry::function<int(int)> closure_of(const char* plugin_path) {
  void* plugin = ::dlopen(plugin_path, RTLD_NOW);
  auto make = plugin ? reinterpret_cast<std::string* (*)(const char*)>(::dlsym(plugin, "ferry_test_make")) : nullptr;
  if (make == nullptr) {
    say_on_stderr(std::string("cannot load ") + plugin_path + ": " + ::dlerror());
    std::exit(2);
  }
  const std::unique_ptr<std::string> bytes(make("lambda"));
  return ferry::loads<ferry::function<int(int)>>(*bytes);
}

// A plugin linking a library that the second host lacks is shipped there
// alone: its task fails with the loader's message, naming that library.
int ship_dependent() {
  const auto task = closure_of(FERRY_TEST_DEPENDENT_PLUGIN);
  std::cout << "here " << task(2) << "\n";
  ferry::mpi_pool pool(one_worker_per_agent(true));
  auto r = pool.submit(task, 2);
  if (r.wait_for(60s) != std::future_status::ready) return 3;
  try {
    const int value = r.get();
    std::cout << "dependent plugin " << value << "\n";
  } catch (const ferry::serialization_error& e) {
    std::cout << "dependent plugin error " << e.type_name() << "\n";
    const bool named = std::string(e.what()).find("libferry_dependency.so") != std::string::npos;
    std::cout << (named ? "the error names the missing library" : "the error does not name it") << "\n";
    say_on_stderr(e.what());
  }
  return 0;
}

// With an agent on each host busy with one sleeping task, the next two
// tasks go one to each (the one with the most room first, the first on a
// tie): the first host's agent is sent the module first, the second host's
// is sent the same bytes after it, and only there is the module missing.
int ship_to_both() {
  const auto from_plugin = closure_of(FERRY_TEST_PLUGIN);
  ferry::mpi_pool pool(one_worker_per_agent(true));
  std::vector<ferry::future<int>> sleeping, shipped;
  for (int i = 0; i < 2; ++i) sleeping.push_back(pool.submit(test_tasks::sleep_ms(), 500));
  for (int i = 0; i < 2; ++i) shipped.push_back(pool.submit(from_plugin, i));
  int right = 0;
  for (int i = 0; i < 2; ++i) {
    if (shipped[i].wait_for(60s) != std::future_status::ready) return 3;
    try {
      right += shipped[i].get() == from_plugin(i) ? 1 : 0;
    } catch (const std::exception& e) {
      say_on_stderr(e.what());
    }
  }
  for (auto& f : sleeping)
    if (f.wait_for(60s) != std::future_status::ready) return 3;
  std::set<int> agents;
  for (auto& f : sleeping) agents.insert(f.get());  // the pid of each worker
  std::cout << "sleeping tasks on " << agents.size() << " workers\n";
  std::cout << "shipped module ran " << right << " of 2\n";
  return 0;
}

// An actor on the second host: its calls run there, in order; its
// worker killed, it is made again there from its constructor's arguments.
int actor_on_the_other_host() {
  ferry::mpi_pool pool(one_worker_per_agent(false));
  auto c = test_tasks::make_counter(pool, 0, 1);
  std::vector<ferry::future<int>> adds;
  for (int i = 0; i < 5; ++i) adds.push_back(test_tasks::counter_add(c, 1));
  auto host = test_tasks::counter_host(c);
  if (host.wait_for(60s) != std::future_status::ready) return 3;
  int last = 0;
  for (auto& f : adds) last = f.get();
  std::cout << "actor on " << host.get() << " counted " << last << "\n";
  auto crash = test_tasks::counter_crash(c);
  auto after = test_tasks::counter_add(c, 1);
  auto where = test_tasks::counter_host(c);
  if (where.wait_for(60s) != std::future_status::ready) return 3;
  try {
    crash.get();
  } catch (const ferry::worker_died_error&) {
    std::cout << "its crash failed the call\n";
  }
  std::cout << "restarted on " << where.get() << " at " << after.get() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ferry::serve_if_mpi_agent(argc, argv);
  if (argc > 1 && std::string(argv[1]) == "--lose-agent") return lose_agent();
  if (argc > 1 && std::string(argv[1]) == "--ship-dependent") return ship_dependent();
  if (argc > 1 && std::string(argv[1]) == "--ship-to-both") return ship_to_both();
  if (argc > 1 && std::string(argv[1]) == "--actor") return actor_on_the_other_host();
  const bool ship = argc > 1 && std::string(argv[1]) == "--ship";
  const auto from_plugin = closure_of(FERRY_TEST_PLUGIN);

  ferry::mpi_pool pool(one_worker_per_agent(ship));
  for (const std::string& host : pool.hosts()) std::cout << "agent on " << host << "\n";

  auto length = pool.submit(test_tasks::length(), std::string(std::size_t{8} << 20, 'b'));
  if (length.wait_for(60s) != std::future_status::ready) return 3;
  std::cout << "length " << length.get() << "\n";

  auto r = pool.submit(from_plugin, 1);
  if (r.wait_for(60s) != std::future_status::ready) return 3;
  try {
    const int value = r.get();
    std::cout << "plugin " << value << "\n";
  } catch (const ferry::serialization_error& e) {
    std::cout << "plugin error " << e.type_name() << "\n";
  }
  return 0;
}
