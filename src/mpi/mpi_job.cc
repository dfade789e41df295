// Copyright ferry authors.
//
// serve_if_mpi_agent: MPI's initialization, which rank is which host's
// agent, and the end of the job.
#include "mpi/mpi_job.h"
#include "internal/unique_fd.h"

#include <fcntl.h>
#include <mpi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "mpi/agent.h"
#include <executor/mpi_pool.h>
#include <executor/worker.h>
#include "mpi/mpi_channel.h"
#include "mpi/mpi_messages.h"
#include <serialize/error.h>

namespace ferry {
namespace detail::mpi {
namespace {

// Maps `count` doorbells shared by the ranks of `node` (collective over
// it): its first rank makes the memory and names it to the others, and the
// name is removed once all have it, so that nothing is left behind by a
// job however it ends. Null where it failed.
doorbell* share_doorbells(MPI_Comm node, int node_rank, std::size_t count) {
  char name[64] = {};
  const std::size_t bytes = count * sizeof(doorbell);
  void* at = MAP_FAILED;
  if (node_rank == 0) {
    std::snprintf(name, sizeof name, "/ferry-bells-%d-%lx", static_cast<int>(::getpid()),
                  static_cast<unsigned long>(std::chrono::steady_clock::now().time_since_epoch().count()));
    const unique_fd fd(::shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (!fd || ::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0 ||
        (at = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0)) == MAP_FAILED) {
      if (fd) ::shm_unlink(name);
      name[0] = '\0';
    }
  }
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, node);
  if (node_rank != 0 && name[0] != '\0') {
    if (const unique_fd fd(::shm_open(name, O_RDWR | O_CLOEXEC, 0600)); fd)
      at = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  }
  MPI_Barrier(node);
  if (node_rank == 0 && name[0] != '\0') ::shm_unlink(name);
  if (at == MAP_FAILED) return nullptr;
  // A fork-started worker never touches them.
  ::madvise(at, bytes, MADV_DONTFORK);
  return static_cast<doorbell*>(at);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown host";
  return name;
}

// Rank 0's end: every other rank ends (the agents are idle: a pool's
// destruction stopped its own), then MPI ends.
void finish_root() {
  job& j = this_job();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // A pool that outlives main (a handle kept, or std::exit) ends first,
  // as its destruction would end it: tasks not sent are dropped.
  if (j.pool.load() == job::pool_phase::running) j.shut_running_pool.run();
  // Its manager thread may still be calling MPI: no other thread may.
  if (j.pool.exchange(job::pool_phase::job_ending) == job::pool_phase::running) MPI_Abort(j.comm, 1);
  try {
    std::vector<int> others(static_cast<std::size_t>(j.size - 1));
    std::iota(others.begin(), others.end(), 1);
    stop_ranks(ranks_except(others, j.lost), false);
  } catch (...) {
  }
  // MPI_Finalize waits for every rank, a lost one too.
  if (!j.lost.empty()) MPI_Abort(j.comm, 1);
  if (j.spawned) {
    // The spawned agents wait for this second stop to finalize with us.
    channel ch(j.comm);
    for (int r = 1; r < j.size; ++r) ch.send(r, kind::stop, 0, encode_stop(false));
    ch.flush();
    disconnect_spawned();
    // A connection of the runtime to the spawned processes may close
    // first; the process is ending, and must end with its own status, not
    // with SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
  }
  MPI_Finalize();
}

}  // namespace

void join_job(MPI_Comm comm) {
  job& j = this_job();
  j.comm = comm;
  MPI_Comm_rank(comm, &j.rank);
  MPI_Comm_size(comm, &j.size);
  j.host = host_name();
  // The ranks sharing this host's memory; the lowest of them but rank 0 is
  // the host's agent.
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, j.rank, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  std::vector<int> ranks(static_cast<std::size_t>(node_size));
  MPI_Allgather(&j.rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, node);
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  j.bells = share_doorbells(node, node_rank, ranks.size());
  j.host_ranks = ranks;
  MPI_Comm_free(&node);
  int lowest = INT_MAX;
  for (int r : ranks)
    if (r != 0 && r < lowest) lowest = r;
  // Every rank learns the agents: rank 0 then talks to them alone, and the
  // other ranks only wait.
  std::vector<int> is_agent(static_cast<std::size_t>(j.size));
  const int mine = j.rank == lowest ? 1 : 0;
  MPI_Allgather(&mine, 1, MPI_INT, is_agent.data(), 1, MPI_INT, comm);
  j.agents.clear();
  for (int r = 0; r < j.size; ++r)
    if (is_agent[static_cast<std::size_t>(r)] != 0) j.agents.push_back(r);
}

void spawn_agents(std::size_t count) {
  job& j = this_job();
  if (j.size != 1)
    throw error("ferry: mpi_pool_options::spawn_agents needs a job of one rank (this one has " +
                std::to_string(j.size) + "); with more, the other ranks are the agents");
  std::vector<char*> argv;
  for (std::size_t i = 1; i < j.args.size(); ++i) argv.push_back(j.args[i].data());
  argv.push_back(nullptr);
  std::string program = "/proc/self/exe";
  char resolved[4096];
  const ssize_t n = ::readlink("/proc/self/exe", resolved, sizeof resolved - 1);
  if (n > 0) program.assign(resolved, static_cast<std::size_t>(n));
  MPI_Comm children;
  std::vector<int> codes(count);
  const int rc = MPI_Comm_spawn(program.c_str(), argv.data(), static_cast<int>(count), MPI_INFO_NULL, 0,
                                MPI_COMM_SELF, &children, codes.data());
  if (rc != MPI_SUCCESS)
    throw error("ferry: MPI_Comm_spawn of " + std::to_string(count) + " agents of '" + program +
                "' failed (MPI error " + std::to_string(rc) + ")");
  MPI_Comm merged;
  MPI_Intercomm_merge(children, 0, &merged);
  j.spawned = true;
  j.intercomm = children;
  join_job(merged);
}

void wait_to_finalize() {
  job& j = this_job();
  channel ch(j.comm);
  idle_backoff backoff(std::chrono::milliseconds(5));
  for (;;) {
    if (auto m = ch.poll()) {
      if (m->type == kind::stop) break;
    } else {
      backoff.wait();
    }
  }
  disconnect_spawned();
}

void disconnect_spawned() {
  job& j = this_job();
  // Open MPI 4.1 hangs in MPI_Comm_disconnect of a communicator made by
  // MPI_Intercomm_merge; freeing it, with nothing pending on it (the stop
  // exchange is complete), and disconnecting the intercommunicator it was
  // made from ends the connection as well.
  MPI_Comm_free(&j.comm);
  MPI_Comm_disconnect(&j.intercomm);
}

job& this_job() {
  static job j;
  return j;
}

void begin_pool(job& j) {
  switch (j.pool.load()) {
    case job::pool_phase::running:
      throw error("ferry: this MPI job's mpi_pool is still running; an MPI job has one pool at a time: "
                  "shut it down (shutdown() waits for its agents) before making the next");
    case job::pool_phase::job_ending:
      throw error("ferry: this MPI job is ending (rank 0 is exiting); no mpi_pool can be made now");
    case job::pool_phase::idle: break;
  }
  if (!j.lost.empty())
    throw error("ferry: MPI rank " + std::to_string(j.lost.front()) + " of this job stopped answering a " +
                "pool; the job cannot have another mpi_pool (start a new job)");
  j.pool = job::pool_phase::running;
}

void end_pool(job& j, const std::vector<int>& lost) {
  j.lost.insert(j.lost.end(), lost.begin(), lost.end());
  job::pool_phase running = job::pool_phase::running;
  j.pool.compare_exchange_strong(running, job::pool_phase::idle);
}

std::vector<int> ranks_except(const std::vector<int>& ranks, const std::vector<int>& excluded) {
  std::vector<int> out;
  for (int r : ranks)
    if (std::find(excluded.begin(), excluded.end(), r) == excluded.end()) out.push_back(r);
  return out;
}

void stop_ranks(const std::vector<int>& ranks, bool kill_running,
                const std::function<void(message&)>& on_other) {
  job& j = this_job();
  if (ranks.empty()) return;
  channel ch(j.comm);
  for (int r : ranks) ch.send(r, kind::stop, 0, encode_stop(kill_running));
  // Each answers stop once its local pool is down; until then its results
  // may still arrive, and are dropped.
  std::size_t answered = 0;
  idle_backoff backoff;
  while (answered < ranks.size()) {
    if (auto m = ch.poll()) {
      if (m->type == kind::stop) ++answered; else if (on_other) on_other(*m);
      backoff.reset();
    } else {
      ch.progress();
      backoff.wait();
    }
  }
  ch.flush();
}

}  // namespace detail::mpi

void serve_if_mpi_agent(int argc, char** argv) {
  serve_if_worker(argc, argv);  // a worker of an agent's pool never reaches MPI
  detail::mpi::job& j = detail::mpi::this_job();
  if (j.initialized) return;
  j.args.assign(argv, argv + argc);
  // OpenMPI makes every poll of an oversubscribed job (more ranks than
  // cores) call sched_yield inside MPI, and with other processes busy each
  // such yield waits out their time slice: three busy loops on two cores
  // made a round trip 8 ms instead of 65 us (docs/performance.md). No
  // ferry rank waits inside MPI; its loops choose when to yield and when to
  // sleep. A value the user gave (mpirun --mca) is kept.
  ::setenv("OMPI_MCA_mpi_yield_when_idle", "0", 0);
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    throw error("ferry: MPI_Init_thread failed; run the program with mpirun");
  if (provided < MPI_THREAD_SERIALIZED)
    throw error("ferry: this MPI library does not support MPI_THREAD_SERIALIZED, which the pool's "
                "manager thread needs");
  MPI_Comm parent = MPI_COMM_NULL;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    // Spawned by a pool's rank 0 (spawn_agents): join it, after it.
    MPI_Comm merged;
    MPI_Intercomm_merge(parent, 1, &merged);
    j.spawned = true;
    j.intercomm = parent;
    detail::mpi::join_job(merged);
  } else {
    detail::mpi::join_job(MPI_COMM_WORLD);
  }
  j.initialized = true;
  if (j.rank == 0) {
    std::atexit(detail::mpi::finish_root);
    return;
  }
  const int status = detail::mpi::run_agent();
  if (j.spawned) {
    detail::mpi::wait_to_finalize();
    std::signal(SIGPIPE, SIG_IGN);  // as on rank 0: the other side may close first
  }
  MPI_Finalize();
  std::exit(status);
}

}  // namespace ferry
