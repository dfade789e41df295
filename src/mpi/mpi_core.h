// Copyright ferry authors. Internal: rank 0's side of an mpi_pool.
//
//   submit() ──▶ pending ──▶ a turn ─────────── task ──▶ agent (one per host)
//   (caller      (mutex)     (turn_mu_: one       MPI     runs a local
//    serializes)             thread at a time             pool_core
//                            calls MPI here)
//   future ◀── future_state ◀── result / failure ◀────────
//
// A turn takes what may go to an agent from the queue, sends it, and
// reads the agents' answers. The manager thread takes turns, and so does
// a thread that waits for one of the pool's futures, polling (help), and a
// submit to a pool with nothing in flight: the task of `submit(f).get()`
// leaves from the submitting thread and its answer is read by it, with no
// hop through the manager each way. While such a thread polls, the manager
// naps on cv_, where the agents' answers do not wake it; a thread that
// stops polling (it blocks, or registers a callback) wakes it (announce).
//
// The manager gives each agent up to workers x tasks_in_flight_per_worker
// tasks at a time (its floor), to the agent with the most free room first.
// Small tasks may go beyond the floor, up to the agent's window: what it
// finished in work_ahead at its recent rate, sampled every millisecond
// (update_windows). A window that follows the rate follows the task
// length: short tasks get a deep window, long ones the floor.
#ifndef FERRY_SRC_MPI_MPI_CORE_H_
#define FERRY_SRC_MPI_MPI_CORE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <executor/internal/submit.h>
#include "executor/core/stop_inbox.h"
#include "executor/core/pool_observation.h"
#include <executor/mpi_pool.h>
#include "executor/core/manager_thread.h"
#include "executor/core/task_intake.h"
#include "executor/core/task_record.h"
#include "internal/mutex.h"
#include "serialize/code/payload_code.h"
#include "mpi/agent_rooms.h"
#include "mpi/doorbell_linux.h"
#include "mpi/mpi_channel.h"

namespace ferry::detail::mpi {
struct job;    // mpi_job.h
struct hello;  // mpi_messages.h
}  // namespace ferry::detail::mpi

namespace ferry::detail {

class mpi_core final : public task_queue, private loop_helper {
 public:
  // Throws ferry::error as mpi_pool's constructor says.
  explicit mpi_core(mpi_pool_options options);
  ~mpi_core() override;  // shutdown({})

  std::shared_ptr<future_state> submit_task(const task_writer& task, std::uint32_t count) override;
  // Called from a callback a turn runs, it does not wait (as pool_core's).
  void shutdown(shutdown_options how) override;
  bool is_shutdown() const override;
  // Whether this thread takes a turn or is the manager
  // (executor/core/pool_deleter.h).
  bool runs_its_loop_here() const;
  unsigned task_retries() const override { return options_.local.task_retries; }
  pool_observer* observer() const override { return observation_.observer(); }
  std::size_t max_workers() const override { return max_workers_; }
  std::vector<std::string> hosts() const;
  const mpi_pool_options& options() const { return options_; }

 private:
  // A turn on a thread that submits or waits (loop_helper): never sleeps.
  // Returns at once, false, while another thread takes a turn, once the
  // pool is shutting down (its last turns are the manager's), or, with
  // `only_when_idle` (a submit), while anything is in flight (a burst of
  // submits is the manager's to batch). True when it ran and took all that
  // was queued (what comes later wakes the manager: submit_task).
  bool help_turn(bool only_when_idle);
  void help() override { help_turn(false); }
  void announce() override;
  // Asks the manager for a turn: news_ moves under intake_.mu, so that a
  // manager about to sleep on cv_ sees it or is woken.
  void wake_manager();
  struct task : task_record {
    std::vector<module_file> modules;  // those the body names
  };
  struct agent {
    int rank = 0;
    std::string host;
    std::size_t floor = 0;   // workers x tasks_in_flight_per_worker
    std::size_t most = 0;    // workers x max_in_flight_per_worker; the window is floor .. most
    double rate = 0;     // answers per second, smoothed
    std::size_t answered = 0;  // since sampled
    std::chrono::steady_clock::time_point sampled;
    // Sent and not answered yet: their bodies gone, running_since when they left.
    std::unordered_map<std::uint64_t, task_record> in_flight;
    std::set<std::string> shipped;  // build-ids of the modules sent to it
    std::chrono::steady_clock::time_point last_heard;
    mpi::doorbell* bell = nullptr;  // null on another host
    bool lost = false;  // silent past agent_timeout: given nothing more
  };

  // Fails the tasks of agents silent past agent_timeout, and, once no agent
  // is left, every pending task.
  void check_agents() ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);

  // Samples each agent's answer rate and sets its window from it.
  void update_windows(std::chrono::steady_clock::time_point now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);

  // The agent with the most room for t, or null when none has room; for an
  // actor's call or drop, its actor's agent, whatever its room. An actor's
  // task that cannot run (its agent was lost, or it was never made) gets
  // its error in `refused` instead.
  agent* agent_for(const task& t, std::exception_ptr& refused) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  std::size_t index_of(const agent& a) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_) {
    return static_cast<std::size_t>(&a - agents_.data());
  }

  // Sends agent a the modules of t it was not sent yet (ship_modules).
  void ship_modules(agent& a, const task& t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);

  // The job's agents: the job's other ranks, or spawned now
  // (mpi_pool_options::spawn_agents), or spawned by an earlier pool.
  void find_agents(mpi::job& j);
  // Sends every agent the pool's config and waits for their hellos (60 s at
  // most): each that could start its pool becomes an agent here.
  void configure_agents(mpi::job& j) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  // The constructor failed: stops the agents that were configured and
  // answered, counts the others lost, and ends the pool's turn in the job.
  void abandon_start(mpi::job& j);
  void add_agent(mpi::job& j, int rank, const mpi::hello& h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  void run();  // the manager thread: turns until shutdown, then stop_agents
  // What a turn saw of the queue, under intake_.mu as it took from it.
  struct queue_seen {
    bool kill = false;      // shutdown said kill_running
    bool finished = false;  // shut down, and nothing left to send or to wait for (or kill)
    bool idle = false;      // nothing in flight, nothing queued: nothing to wait for from the agents
    bool empty = false;     // nothing left queued
  };
  // What one turn took from the queue: tasks and the agents they go to.
  struct turn_plan {
    std::vector<std::pair<agent*, task>> to_send;
    std::vector<std::pair<task, std::exception_ptr>> refused;  // failed once the lock is let go
    queue_seen queue;
  };
  struct turn_outcome {
    bool did = false;      // sent or read something
    bool sending = false;  // pieces of a large message are still going out
    queue_seen queue;
  };
  turn_outcome take_turn() ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  turn_plan take_tasks() ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  void send_tasks(std::vector<std::pair<agent*, task>>& to_send) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  // Sends each future::cancel(grace) request to the agent holding its task;
  // fails one still queued here.
  void send_stop_requests() ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  struct read_outcome {
    bool did = false;      // a message was read
    bool sending = false;  // pieces of a large message are still going out
  };
  read_outcome read_answers() ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  // After the loop: fails what ran if shutdown killed it, then stops the
  // agents (not the lost ones, to which a send would never complete).
  void stop_agents(bool kill) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  // The manager's wait, without turn_mu_, when a turn did nothing: while a
  // thread polls for its answers (help), a nap on cv_ of at most
  // helped_nap; with nothing to wait for from the agents (`idle`), on cv_
  // until a heartbeat is due; else it yields, or sleeps on its doorbell
  // (rung by a submit and by agents on this host) or, without one, for the
  // back-off's time. `news_seen`: news_ before the turn.
  void wait_for_news(mpi::idle_backoff& backoff, std::uint64_t news_seen, bool idle);
  void on_message(mpi::message m) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  // How task t travels: with its settings when it has a timeout or a name.
  static mpi::kind kind_of(const task& t);
  // A task's result or failure from agent a.
  void on_answer(agent& a, mpi::kind type, std::uint64_t id, std::string body) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  void fail_in_flight(std::exception_ptr error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);
  // Fails the tasks an agent holds, with their events.
  void fail_sent(agent& a, const std::exception_ptr& error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(turn_mu_);

  const mpi_pool_options options_;
  const pool_observation observation_{options_.local, true};
  std::unique_ptr<mpi::channel> channel_;
  std::vector<agent> agents_ ABSL_GUARDED_BY(turn_mu_);
  mpi::agent_rooms rooms_ ABSL_GUARDED_BY(turn_mu_){0};  // of agents_, by index
  std::vector<std::size_t> agent_of_rank_;  // index in agents_, or agents_.size()
  // Where each actor lives (executor/actor.h): the agent its constructor
  // call went to, by index; its calls go there, whatever its room. An
  // actor leaves once its drop is sent.
  std::unordered_map<std::uint64_t, std::size_t> actor_agents_ ABSL_GUARDED_BY(turn_mu_);
  std::size_t max_workers_ = 0;
  std::vector<std::string> hosts_;  // of agents_, in order; set by the constructor
  bool configured_ = false;  // the agents were sent the config (constructor only)
  std::vector<int> hellos_;  // the ranks that answered it (constructor only)
  // The module messages sent to some agents and not yet to all.
  std::unordered_map<std::string, std::shared_ptr<const message_body>> module_messages_ ABSL_GUARDED_BY(turn_mu_);

  std::condition_variable cv_;  // with intake_.mu: work for the manager
  mpi::doorbell* bell_ = nullptr;  // rank 0's; null without shared memory
  // Counts what asks the manager for a turn (submits, stop requests,
  // shutdown, announce); moved under intake_.mu (wake_manager).
  std::atomic<std::uint64_t> news_{0};
  // When a thread last polled through help(); zero after announce(). The
  // manager naps while it is recent.
  std::atomic<std::chrono::steady_clock::rep> last_help_{0};
  // The manager sleeps until a heartbeat is due (nothing was in flight).
  std::atomic<bool> manager_idle_{false};
  task_intake<task> intake_;
  // Held by the thread taking a turn: the manager, or one that submits or
  // waits (help_turn). The manager lets go of it while it waits. What the
  // agents were sent and the channel are touched only under it (MPI is
  // initialized MPI_THREAD_SERIALIZED: one thread calls it at a time).
  mutex turn_mu_;
  std::chrono::steady_clock::time_point next_look_ ABSL_GUARDED_BY(turn_mu_){};  // at the agents (check_agents)
  // The last turn saw the pool shut down: the turns left are the manager's.
  bool closing_ ABSL_GUARDED_BY(turn_mu_) = false;
  // The stop target of every task's future (future::cancel(grace)): wakes
  // the manager as a submit does. Closed by the destructor.
  const std::shared_ptr<stop_inbox> stops_ = std::make_shared<stop_inbox>([this] { wake_manager(); });

  manager_thread manager_;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_MPI_MPI_CORE_H_
