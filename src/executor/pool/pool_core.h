// Copyright ferry authors. Internal: the process pool itself, behind
// process_pool (own_thread) and an MPI agent's local_pool (caller).
//
//   submit() ──▶ pending queue ──▶ manager ──────▶ worker sockets ──▶ workers
//   (caller       (intake_.mu)     ppoll(): wake-up  a task per worker,  run their
//    encodes,                      eventfd, sockets, and one more queued tasks in
//    admission.h)                  pidfds, timers    when all are busy   order
//   future ◀── future_state ◀──── manager reads results, reaps exits
//                                  (worker_exit.h), starts workers
//                                  (start_retry.h) and retires them
//
// The fast path of a task waited for at once (submit(f).get()): while the
// manager sleeps, submit sends the task to an idle worker itself, and the
// waiting thread, polling (future_state's yields), reads the result
// itself, both in a pass of the manager's loop run on that thread (help):
// one wake-up per task, the worker's, where the manager's hop each way
// added two more. The manager does not poll the sockets of the workers it
// left idle; a thread that stops polling (it blocks, or registers a
// callback) tells it to look again (announce).
//
// The parts, each in a file of its own: a worker's state, tasks in flight
// and deadlines (worker_slot.h); why it ended (worker_exit.h); when to try
// starting again (start_retry.h); what may be queued (admission.h); the
// queue and shutdown flags (task_intake.h).
//
// Thread-safety: submit, shutdown, resize and the getters may be called from
// any thread; what they share with the manager is guarded by intake_.mu. Only the
// thread running a pass of the manager loop (holding loop_mu_) touches
// workers: a thread of the pool's own, or, for a pool made with
// driver::caller, the thread that made it, through turn(); and, in a pool
// with a thread of its own, a thread that submits or waits (help).
#ifndef FERRY_SRC_EXECUTOR_POOL_POOL_CORE_H_
#define FERRY_SRC_EXECUTOR_POOL_POOL_CORE_H_

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <executor/internal/future_state.h>
#include <executor/internal/submit.h>
#include "executor/core/local_pool.h"
#include "executor/core/manager_thread.h"
#include <executor/pool_options.h>
#include "executor/wire/protocol.h"
#include <executor/shutdown_options.h>
#include "executor/pool/spin_policy.h"
#include "executor/pool/start_retry.h"
#include "executor/core/task_events.h"
#include "executor/core/stop_inbox.h"
#include "executor/core/task_intake.h"
#include "executor/core/pool_observation.h"
#include "executor/core/spare_body.h"
#include "executor/pool/worker_slot.h"
#include "internal/mutex.h"
#include "internal/unique_fd.h"

namespace ferry::detail {

// Who runs a pool_core's manager loop: a thread of the pool's own
// (process_pool), or the thread that made the pool, calling turn() (an MPI
// agent, whose one thread also serves MPI, so that a worker's answer
// reaches it with no thread in between). A caller-driven pool is used from
// that thread alone.
enum class pool_driver { own_thread, caller };

// What sets a process_pool's core apart from an MPI agent's local pool,
// each choice on its own.
struct pool_role {
  pool_driver loop = pool_driver::own_thread;
  // A task's shared buffers cross to its worker as descriptors: tasks
  // encoded here. An agent is given bodies written with buffers by value.
  bool pass_buffers = true;
  // A sent large task body's memory is kept for the next task encoded here
  // (executor/core/spare_body.h). An agent encodes none of its tasks: what
  // it kept would only be held.
  bool keeps_spare_bodies = true;
  // pool_options::trace ($FERRY_TRACE) is recorded here. An agent's pool
  // records none: rank 0 records the MPI pool's.
  bool records_trace = true;
  std::string host{};  // an MPI agent's host, named in output prefixes; empty otherwise
};

class pool_core final : public local_pool, private loop_helper {
 public:
  using driver = pool_driver;
  using role = pool_role;
  // Throws ferry::error inside a worker process, ferry::worker_start_error
  // when the plugin worker program cannot be executed.
  // `initializer_record`: as local_pool::create says.
  explicit pool_core(pool_options options, std::string initializer_record = {}, role r = {});
  ~pool_core() override;  // shutdown({}): waits for the queue to drain

  std::shared_ptr<future_state> submit_task(const task_writer& task, std::uint32_t count) override;
  std::shared_ptr<future_state> submit_body(std::string body, const task_settings& settings,
                                            std::uint64_t origin_id) override;
  // With how.wait, a caller-driven pool turns until it is drained. Called
  // from a callback the pool's loop runs (its manager thread, a pass on a
  // thread that submits or waits), it does not wait: the loop it would
  // wait for resumes once the callback returns, and finishes the shutdown.
  void shutdown(shutdown_options how) override;
  // Whether this thread runs the pool's loop: its manager thread, or a
  // pass on a thread that submits or waits (executor/core/pool_deleter.h).
  bool runs_its_loop_here() const;
  bool is_shutdown() const override;
  unsigned task_retries() const override { return options_.task_retries; }
  pool_observer* observer() const override { return observation_.observer(); }
  // driver::caller only (local_pool).
  bool turn(std::chrono::microseconds timeout) override;
  void start_workers() override;
  void resize(std::size_t max_workers);
  std::size_t max_workers() const override;
  std::vector<int> worker_pids() const override;
  const pool_options& options() const { return options_; }

 private:
  using clock = std::chrono::steady_clock;

  // Queues an admitted task.
  // `parent`: for a nested task, the task that submitted it.
  std::shared_ptr<future_state> enqueue(std::string body, fd_list attachments, const task_settings& settings,
                                        std::uint32_t items = 1, std::uint64_t origin_id = 0,
                                        std::uint64_t parent = 0);
  // Tasks that submit tasks (worker/task_server.h): queues what a worker's
  // submit message carries, its result to go back to that worker.
  void enqueue_nested(worker_slot& w, message& m);
  // Sends the results of nested tasks finished since the last pass.
  void send_nested_results();
  // Sends each worker whose innermost task waits for nested tasks one of
  // that task's children, if one is queued.
  struct dispatch_pass;
  void help_waiting_workers(dispatch_pass& pass);
  // Fails the queued children of task `parent`, which ended.
  void cancel_children(std::uint64_t parent);

  // Actors (executor/actor.h). Each has a home here from its first task
  // taken from the queue: the worker its constructor call went to, and its
  // tasks taken from the queue and not yet sent, in the order made; they go
  // to that worker alone. The manager's.
  struct actor_home {
    worker_slot* worker = nullptr;  // bound; null before its make is sent, and after its worker died
    std::deque<pool_task> calls;
    std::string make_body;       // its constructor call's message, for a restart
    unsigned restarts_left = 0;  // actor_options::max_restarts, less those made
    std::exception_ptr death;    // set once it is gone: its calls fail with this
  };
  // An actor's task taken from the queue: to its home, then on if it can.
  void take_actor_task(pool_task t, dispatch_pass& pass);
  // Sends what the home holds while its worker can take it (a worker to
  // bind first, for a make). True once its drop was sent: the home ends.
  bool send_actor_calls(actor_home& home, dispatch_pass& pass);
  void send_all_actor_calls(dispatch_pass& pass);
  // Tasks that never ran, given back: an actor's go to its home, ahead of
  // its later ones, in their order (a make unbinds it again); the others
  // stay in `tasks`.
  void return_to_homes(std::deque<pool_task>& tasks);
  // Worker w ended (its unstarted tasks given back already): each actor
  // bound to it is made again (restarts left) or gone, its calls to fail
  // with `why`.
  void lose_actors(worker_slot& w, const std::exception_ptr& why);
  // Fails the calls the homes hold (all, or those of actors not yet bound,
  // which nothing can run when no worker can start).
  void fail_actor_calls(const std::exception_ptr& error, bool unbound_only);
  // A future::cancel(grace) for a call a home holds: fails it. False if
  // none holds it.
  bool cancel_actor_call(std::uint64_t id);
  // The events of a task a worker holds (task_events.h).
  void tell(task_event::kind what, const worker_slot& w, const pool_task& t, std::uint32_t items_threw = 0,
            std::string_view error = {}) const;
  // A pass of the manager loop, waiting at most `most` (nullopt: until a
  // timer is due); false once shut down and drained, or after a failure,
  // with the workers then stopped.
  bool pass(std::optional<clock::duration> most);
  bool serve_once(std::optional<clock::duration> most) ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_mu_);
  // A pass on a thread that submits or waits (loop_helper): sends small
  // plain tasks queued, reads what has arrived, never sleeps, never blocks
  // in a write (a stopped worker would hold the caller), never starts a
  // worker (a worker dies with the thread that started it:
  // PR_SET_PDEATHSIG), and wakes the manager when its sleep no longer covers
  // what is left.
  // Returns at once, false, while another thread runs a pass, or, with
  // `only_when_idle`, while any worker runs a task (a burst of submits is
  // the manager's to batch).
  bool run_helping_pass(bool only_when_idle = false);
  void help() override { run_helping_pass(); }
  void announce() override;
  // The descriptors a pass polls (the sockets of idle workers only when
  // `idle_sockets`), and what it does with those that are ready.
  void fill_fds(std::vector<pollfd>& fds, bool idle_sockets) const;
  void take_ready(const std::vector<pollfd>& fds, bool helping);
  void fail_everything(std::exception_ptr error);
  void wake();
  void start_worker();
  // A start failed (`message` says why): fails the queue with a
  // worker_start_error when start_retry says it is hopeless.
  void start_failed(const std::string& message, bool lasting);
  std::size_t live_workers() const;
  std::size_t ready_workers() const;  // those that said ready
  bool any_ready_worker() const;
  // Hands the queue's tasks to workers, starting workers as needed; their
  // messages leave in one write per worker once the queue is done.
  // `helping`: a helping pass's, which sends only what cannot block it
  // (small plain tasks, into a socket whose worker has read all before) and
  // leaves the rest, worker starts included, to the manager.
  void dispatch(bool helping = false);
  // What one dispatch has done: the workers with messages waiting to leave,
  // and the tasks that run at once (their started event is told once their
  // message left).
  struct dispatch_pass {
    bool helping = false;
    std::vector<worker_slot*> sent_to;
    std::vector<std::pair<worker_slot*, std::uint64_t>> started;
  };
  // Where the queue's front task goes: an idle worker; else a worker to
  // start; else a busy one it may queue behind (pipelined_worker); else
  // nowhere yet.
  struct placement {
    worker_slot* worker = nullptr;
    bool start_worker = false;
  };
  placement place(const pool_task& front) ABSL_EXCLUSIVE_LOCKS_REQUIRED(intake_.mu);
  worker_slot* pipelined_worker(const pool_task& front) ABSL_EXCLUSIVE_LOCKS_REQUIRED(intake_.mu);
  // Whether t may wait in busy worker w's socket behind what it runs, with
  // at most `depth` tasks in flight there: the pipelining rule, for plain
  // tasks and an actor's calls alike.
  bool may_queue_behind(const worker_slot& w, const pool_task& t, std::size_t depth) const;
  // Sends t to w (after what waits for w, if t goes alone); gives t back if
  // it never left.
  std::optional<pool_task> send_to(worker_slot& w, pool_task t, dispatch_pass& pass);
  // Writes what waits for w; gives back to the queue the tasks whose
  // messages did not leave (and forgets their started events). True if any.
  bool flush_to(worker_slot& w, std::vector<std::pair<worker_slot*, std::uint64_t>>& started);
  // Gives back tasks that never ran: to the queue, each ahead of those of
  // its priority, in their order; an actor's to its home.
  void requeue(std::deque<pool_task>& tasks);
  void on_message(worker_slot& w, message& m);
  void on_exit(worker_slot& w);
  void enforce_timers(clock::time_point now);
  std::optional<clock::time_point> next_timer(clock::time_point now) const;
  void publish_pids();
  bool finished_shutting_down();
  void stop_all_workers();
  // The variables each worker sets: options_.env and the bounds on its
  // inner threads (worker/inner_threads.h).
  std::map<std::string, std::string> worker_env() const;
  // The hello, which sets `env` (worker_env()) in the worker.
  std::string hello_body(std::map<std::string, std::string> env) const;
  // Acts on future::cancel(grace) requests: asks the worker holding each
  // task to stop it, and arms its grace deadline (deadline::stop_grace).
  void take_stop_requests(clock::time_point now);
  bool captures_output() const {
    if (options_.start == start_method::in_process) return false;  // a thread writes to this process's own
    return options_.worker_output == output_mode::prefix || static_cast<bool>(options_.on_output);
  }
  // A line a worker wrote: to on_output, or to this process's own stream
  // after its worker and task.
  void emit_output(const worker_slot& w, int stream, std::string_view text) const;
  void read_all_output(worker_slot& w, bool to_the_end);

  const pool_options options_;
  const role role_;
  const std::string program_;  // for spawn and plugin
  const std::string key_;      // authenticates every message after the hello
  const worker_slot::limits limits_;
  const worker_slot::message_handler handler_;
  const pool_observation observation_;
  // The initializer as every hello carries it; encoded by the first hello.
  // The manager's.
  mutable std::string initializer_;

  task_intake<pool_task> intake_;
  // Written under intake_.mu (resize); read without it by submit, whose
  // wake-up it steers.
  std::atomic<std::size_t> max_workers_;
  std::vector<int> pids_ ABSL_GUARDED_BY(intake_.mu);
  // Nested tasks finished, whose results go to the workers that submitted
  // them (by pid, as a worker may be gone by then).
  struct nested_reply {
    pid_t worker;
    std::uint64_t id;  // the worker's number for it
    std::shared_ptr<future_state> state;
  };
  std::vector<nested_reply> replies_ ABSL_GUARDED_BY(intake_.mu);
  std::map<std::uint64_t, actor_home> actors_;  // the manager's
  // Whether replies_ may hold any: the manager's pass takes no lock for
  // them in a pool whose tasks submit none.
  std::atomic<bool> has_replies_{false};

  unique_fd wake_fd_;  // the eventfd that wakes the manager; closed after shutdown joined it
  // The directory this process was in when the pool started its first
  // worker, where every worker starts, those started later (after a death,
  // an idle retirement, a resize) too; none if it could not be opened (they
  // start where the process is then); unset until then. The manager's.
  std::optional<unique_fd> start_directory_;
  // The stop target of every task's future (future::cancel(grace)); closed
  // by the destructor, as a future may outlive the pool.
  const std::shared_ptr<stop_inbox> stops_ = std::make_shared<stop_inbox>([this] { wake(); });
  // A large task body's memory, kept after its message left for the next
  // large task to be encoded into: taken by submit, given back by the
  // worker slots, which hold its address (declared before them, it
  // outlives them).
  spare_body spare_;
  // The manager's alone.
  std::vector<std::unique_ptr<worker_slot>> workers_;
  // Counts the nested tasks queued (and tasks given back to the queue),
  // so that a waiting worker's search for a child of its task runs again
  // only when one may have come.
  std::uint64_t nested_queued_ = 1;
  start_retry retry_;
  // When the last dispatch looked at retry_: the next try is timed from it
  // (next_timer), so that a try falling due between that look and the
  // manager's sleep still wakes it.
  clock::time_point dispatched_at_{};
  // Held by the thread running a pass of the manager loop; the manager
  // lets go of it while it sleeps in ppoll, so that a thread that submits
  // or waits may run one (help). The manager's state (workers_, actors_,
  // the timers) is touched only under it.
  mutex loop_mu_;
  // Counts passes: a manager waking from ppoll skips what it saw if a
  // helping pass ran meanwhile (that may have read it, and changed workers_).
  std::uint64_t passes_ ABSL_GUARDED_BY(loop_mu_) = 0;
  // What the manager's sleep covers: when it wakes at the latest, and how
  // many workers it polls.
  clock::time_point manager_wakes_at_ ABSL_GUARDED_BY(loop_mu_) = clock::time_point::max();
  std::size_t manager_workers_ ABSL_GUARDED_BY(loop_mu_) = 0;
  // A helping pass sent a task whose worker the sleeping manager does not
  // poll; announce() then wakes it.
  std::atomic<bool> unannounced_{false};
  std::vector<pollfd> fds_;  // of the manager's pass; the kernel writes it until ppoll returns
  std::vector<pollfd> help_fds_ ABSL_GUARDED_BY(loop_mu_);  // of a helping pass
  // The manager's polling before it sleeps (pool_options::spin, at most 1 s).
  spin_policy spin_{std::clamp(options_.spin, std::chrono::microseconds(0), std::chrono::microseconds(1'000'000))};
  bool stopped_ = false;     // the loop ended and the workers were stopped

  manager_thread manager_;  // driver::own_thread only
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_POOL_CORE_H_
