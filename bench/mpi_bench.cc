// Copyright ferry authors.
//
// ferry::mpi_pool measurements, run by scripts/bench_mpi.sh under
// `mpirun -n 3` (rank 0, one agent, one waiting rank); prints the JSON lines
// of executor_bench. bench/mpi4py_bench.py measures mpi4py.futures the same
// way, and executor_bench the process pool, in the same run.
//
//   mpirun -n 3 mpi_bench roundtrip|throughput [in flight [fixed]]|idle|ship on|off|large
//   mpirun -n N+1 mpi_bench hosts N     (scripts/bench_mpi_hosts.sh)
#include <dirent.h>
#include <sys/resource.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <executor/mpi_pool.h>
#include <serialize/dumps.h>

#include "bench_output.h"
#include "pool_measures.h"

namespace {

using bench::clock_type;
using bench::emit;
using bench::seconds_since;

ferry::function<int(int)> noop() {
  return [](int x) { return x; };
}

ferry::mpi_pool_options options(std::size_t workers, std::size_t in_flight = 2, bool fixed = false) {
  ferry::mpi_pool_options o;
  o.local.max_workers = workers;
  o.tasks_in_flight_per_worker = in_flight;
  if (fixed) o.work_ahead = {};
  return o;
}

void roundtrip() {
  ferry::mpi_pool pool(options(1));
  bench::measure_roundtrip(pool, noop(), "mpi_", 300, 3000);
}

// A task taking and returning 64 MiB, as executor_bench's `large`:
// mpi_large_gbps counts both ways, beside mpi_pingpong's 64 MiB row.
void large() {
  ferry::mpi_pool pool(options(1));
  bench::measure_large(pool, "mpi_");
}

// The in-flight depth, and whether the window is fixed (work_ahead zero),
// are the job's arguments: each measure starts a job of its own, as
// scripts/bench_mpi.sh pairs jobs.
void throughput(std::size_t in_flight, bool fixed) {
  const auto started = clock_type::now();
  ferry::mpi_pool pool(options(2, in_flight, fixed));
  pool.submit(noop(), 0).get();
  if (in_flight == 2 && !fixed) emit("mpi_start_to_first_result", seconds_since(started) * 1e3, "ms");
  const std::string suffix = "_inflight" + std::to_string(in_flight) + (fixed ? "_fixed" : "");
  bench::measure_throughput(pool, noop(), "mpi_", suffix, 50'000, {1, 100});
}

// CPU ticks (user + system) of a process, from /proc.
long cpu_ticks(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string skip;
  for (int i = 0; i < 11; ++i) fields >> skip;  // state .. cmajflt
  long utime = 0, stime = 0;
  fields >> utime >> stime;
  return utime + stime;
}

// A variable of a process's environment, or "".
std::string env_of(int pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  const std::string prefix = name + "=";
  for (std::string var; std::getline(in, var, '\0');)
    if (var.rfind(prefix, 0) == 0) return var.substr(prefix.size());
  return {};
}

// The processes of this MPI job, on every host simulated on this machine
// too: those whose PMIX_NAMESPACE, the job's name, is this process's. An
// agent's workers have none, since they do not inherit the launcher's
// variables.
std::vector<int> job_ranks() {
  const std::string job = env_of(::getpid(), "PMIX_NAMESPACE");
  std::vector<int> pids;
  DIR* proc = ::opendir("/proc");
  while (dirent* e = proc ? ::readdir(proc) : nullptr) {
    const int pid = std::atoi(e->d_name);
    if (pid > 0 && !job.empty() && env_of(pid, "PMIX_NAMESPACE") == job) pids.push_back(pid);
  }
  if (proc) ::closedir(proc);
  std::sort(pids.begin(), pids.end());
  return pids;
}

// Each rank's CPU while the pool has nothing to do, in percent of a core.
void idle() {
  ferry::mpi_pool pool(options(1));
  pool.submit(noop(), 0).get();
  const std::vector<int> pids = job_ranks();
  std::vector<long> before;
  for (int pid : pids) before.push_back(cpu_ticks(pid));
  const auto t = clock_type::now();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const double seconds = seconds_since(t);
  const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  std::vector<std::pair<int, double>> used;  // rank, percent
  for (std::size_t i = 0; i < pids.size(); ++i)
    used.emplace_back(std::atoi(env_of(pids[i], "OMPI_COMM_WORLD_RANK").c_str()),
                      (cpu_ticks(pids[i]) - before[i]) / hz / seconds * 100);
  std::sort(used.begin(), used.end());
  double most = 0;
  for (const auto& [rank, percent] : used) {
    emit("mpi_idle_cpu_rank" + std::to_string(rank), percent, "%");
    most = std::max(most, percent);
  }
  emit("mpi_idle_cpu_busiest_rank", most, "%");
}

// Rank 0's cost as agents are added (scripts/bench_mpi_hosts.sh runs this
// over 1, 2, 4 and 8 simulated hosts, one worker each): its CPU while the
// pool idles (heartbeats, each agent's window sampled), and the tasks/s of
// 20 000 no-op submits with its CPU per task.
void hosts(int agents) {
  ferry::mpi_pool pool(options(1));
  {
    std::vector<ferry::future<int>> warm;
    for (int i = 0; i < 100 * agents; ++i) warm.push_back(pool.submit(noop(), i));
    for (auto& f : warm) f.get();
  }
  const std::string n = "_h" + std::to_string(agents);
  // This process's CPU time, to the microsecond (/proc's ticks are 10 ms).
  const auto cpu_seconds = [] {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  };
  double cpu = cpu_seconds();
  auto t = clock_type::now();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  emit("mpi_hosts_rank0_idle_cpu" + n, (cpu_seconds() - cpu) / seconds_since(t) * 100, "%");
  constexpr int count = 20'000;
  cpu = cpu_seconds();
  t = clock_type::now();
  std::vector<ferry::future<int>> futures;
  futures.reserve(count);
  for (int i = 0; i < count; ++i) futures.push_back(pool.submit(noop(), i));
  for (auto& f : futures) f.get();
  const double seconds = seconds_since(t);
  emit("mpi_hosts_tasks_per_s" + n, count / seconds, "tasks/s");
  emit("mpi_hosts_rank0_cpu_per_task" + n, (cpu_seconds() - cpu) / count * 1e6, "us");
}

// The first task naming an 8 MiB plugin (bench/ship_plugin.cpp) that the
// agent's workers have not loaded: submit to result, with the module shipped
// first (ship_modules) or found at its path. Across the simulated hosts of
// scripts/bench_mpi.sh the plugin's directory is hidden on the agent's host,
// so only the shipped run can load it there.
void ship(bool shipped) {
  void* plugin = ::dlopen(FERRY_BENCH_SHIP_PLUGIN, RTLD_NOW);
  auto make = plugin ? reinterpret_cast<std::string* (*)()>(::dlsym(plugin, "ferry_bench_make")) : nullptr;
  if (make == nullptr) {
    std::fprintf(stderr, "mpi_bench: cannot load %s\n", FERRY_BENCH_SHIP_PLUGIN);
    std::exit(2);
  }
  const std::unique_ptr<std::string> bytes(make());
  const auto task = ferry::loads<ferry::function<int(int)>>(*bytes);
  ferry::mpi_pool_options o = options(1);
  o.ship_modules = shipped;
  ferry::mpi_pool pool(o);
  pool.submit(noop(), 0).get();  // the worker is up
  const auto t = clock_type::now();
  if (pool.submit(task, 0).get() != 1) std::exit(3);  // 0 + the ballast's first byte
  emit(shipped ? "mpi_first_task_of_a_shipped_8mib_module" : "mpi_first_task_of_an_8mib_module_on_its_path",
       seconds_since(t) * 1e3, "ms");
}

}  // namespace

int main(int argc, char** argv) {
  ferry::serve_if_mpi_agent(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "roundtrip") roundtrip();
  else if (mode == "throughput")
    throughput(argc > 2 ? std::stoul(argv[2]) : 2, argc > 3 && std::string(argv[3]) == "fixed");
  else if (mode == "idle") idle();
  else if (mode == "ship") ship(argc > 2 && std::string(argv[2]) == "on");
  else if (mode == "large") large();
  else if (mode == "hosts" && argc > 2) hosts(std::atoi(argv[2]));
  else {
    std::fprintf(stderr, "usage: mpirun -n 3 %s roundtrip|throughput [in flight [fixed]]|idle|ship on|off|large|hosts N\n",
                 argv[0]);
    return 2;
  }
  return 0;
}
