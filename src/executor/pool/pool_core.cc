// Copyright ferry authors.
#include "executor/pool/pool_core.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

#include "executor/core/admission.h"
#include "executor/core/loop_scope.h"
#include "executor/core/option_checks.h"
#include <executor/cpu_count.h>
#include <executor/errors.h>
#include <executor/internal/result_items.h>
#include "executor/pool/launcher.h"
#include "executor/core/policy_snapshot.h"
#include "executor/core/user_callback.h"
#include "executor/pool/process_linux.h"
#include "executor/worker/inner_threads.h"
#include "executor/wire/task_exception.h"
#include <executor/worker.h>
#include "serialize/frame/hmac.h"

namespace ferry::detail {
namespace {

// When every worker is busy and the pool is at full size, a worker is sent
// its next tasks before it answers the current one, so that it starts each
// as soon as it has written the last result instead of a round trip later
// (as many as worker_slot::pipeline_depth allows). Only what fits in the
// socket's buffer without blocking is queued behind a running task (each
// is kept until it starts, to be sent elsewhere if the worker dies first):
// a larger message waits for an idle worker.
constexpr std::size_t max_pipelined_inline = 32 * 1024;
constexpr std::size_t max_queued_bytes = 64 * 1024;

}  // namespace

std::shared_ptr<local_pool> local_pool::create(pool_options options, std::string initializer_record,
                                               std::string host) {
  return std::make_shared<pool_core>(
      std::move(options), std::move(initializer_record),
      pool_role{.loop = pool_driver::caller, .pass_buffers = false, .keeps_spare_bodies = false,
                .records_trace = false, .host = std::move(host)});
}

local_pool::~local_pool() = default;

pool_core::pool_core(pool_options options, std::string initializer_record, role r)
    : options_(std::move(options)),
      role_(std::move(r)),
      program_(options_.start == start_method::plugin
                   ? (options_.worker_program.empty() ? default_worker_program()
                                                      : options_.worker_program.string())
                   : spawn_program_path()),
      key_((initialize_crypto(), new_pool_key())),
      limits_{options_.task_timeout, options_.idle_timeout},
      handler_([this](worker_slot& w, message& m) { on_message(w, m); }),
      observation_(options_, role_.records_trace),
      initializer_(std::move(initializer_record)),
      max_workers_(options_.max_workers != 0 ? options_.max_workers : cpu_count()) {
  check_pool_options(options_, "pool_options");
  if (is_worker_process())
    throw error("ferry: a process_pool cannot be created inside a pool's worker process; "
                "nested pools are not supported; a task submits to the pool it runs in through "
                "ferry::this_task::pool()");
  // With the effective ids, as exec will check: a process whose real uid
  // differs (a setuid program) may still run the worker.
  if (options_.start == start_method::plugin &&
      ::faccessat(AT_FDCWD, program_.c_str(), X_OK, AT_EACCESS) != 0)
    throw worker_start_error("ferry: the worker program '" + program_ +
                             "' for start_method::plugin is not an executable file; set "
                             "pool_options::worker_program or $FERRY_WORKER");
  wake_fd_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake_fd_) {
    const int err = errno;
    throw error(std::string("ferry: a pool cannot make its eventfd: ") + std::strerror(err) + descriptor_shortage(err));
  }
  if (role_.loop == driver::own_thread) {
    stops_->set_helper(this);
    manager_.start([this] {
      while (pass(std::nullopt)) {
      }
      observation_.loop_ended();
    });
  }
}

pool_core::~pool_core() {
  shutdown({});
  stops_->close();
}

std::shared_ptr<future_state> pool_core::submit_task(const task_writer& task, std::uint32_t count) {
  // Shared buffers pass as descriptors to this pool's own workers; an MPI
  // agent's pool is given bodies already written.
  // An actor's constructor call that may be sent again (a restart) keeps
  // its shared buffers in its body.
  const task_settings settings = task.settings();
  const bool restartable = settings.actor.what == actor_route::part::make && settings.actor.max_restarts != 0;
  auto admitted = admit(task, count, options_, false, role_.pass_buffers && !restartable, spare_.take());
  if (auto* failed = std::get_if<std::shared_ptr<future_state>>(&admitted)) return *failed;
  auto& encoded = std::get<protocol::encoded_task>(admitted);
  spare_.settle(encoded.body);
  return enqueue(std::move(encoded.body), std::move(encoded.attachments), settings, count);
}

std::shared_ptr<future_state> pool_core::submit_body(std::string body, const task_settings& settings,
                                                     std::uint64_t origin_id) {
  // Its sender (rank 0 of an MPI pool) admitted it for these workers
  // already; the size is checked again, as this pool's limit is what holds.
  protocol::encoded_task task;
  task.body = std::move(body);
  if (std::exception_ptr why = refusal(task, options_)) return failed_state(why);
  return enqueue(std::move(task.body), {}, settings, 1, origin_id);
}

std::shared_ptr<future_state> pool_core::enqueue(std::string body, fd_list attachments, const task_settings& settings,
                                                 std::uint32_t items, std::uint64_t origin_id, std::uint64_t parent) {
  auto state = make_future_state();
  const std::size_t before = intake_.submit(observer(), items, settings.name, [&](std::uint64_t id) {
    state->bind_stop_target(stops_, id);
    const int priority = queue_priority(settings);
    pool_task t{{id, std::move(body), state, settings.timeout, std::string(settings.name), items, priority,
                 settings.actor},
                std::move(attachments), false, false, origin_id};
    t.parent = parent;
    return t;
  }, parent != 0).second;
  // The fast path (see the header): the queue was empty, so the task may go
  // to an idle worker from this thread at once, the manager left asleep.
  // A pass that leaves anything queued wakes the manager itself.
  if (before == 0 && role_.loop == driver::own_thread && run_helping_pass(true)) return state;
  // A queue already longer than the pool has had its wake-ups: the manager
  // takes everything queued when it dispatches (starting a worker for each
  // task up to the pool's size), and what it leaves waits for a worker,
  // whose answer wakes it anyway. One system call less per task when tasks
  // come faster than workers take them.
  if (before < max_workers_.load(std::memory_order_relaxed)) wake();
  return state;
}

void pool_core::read_all_output(worker_slot& w, bool to_the_end) {
  const auto sink = [&](int stream, std::string_view line) { emit_output(w, stream, line); };
  w.read_output(1, to_the_end, sink);
  w.read_output(2, to_the_end, sink);
}

void pool_core::emit_output(const worker_slot& w, int stream, std::string_view text) const {
  const pool_task* running = w.innermost();
  if (options_.on_output) {
    output_line line;
    line.worker = w.pid();
    line.host = role_.host;
    line.stream = stream;
    line.task = running != nullptr ? running->shown_id() : 0;
    line.name = running != nullptr ? std::string_view(running->name) : std::string_view();
    line.text = text;
    call_user(user_callback::on_output, [&] { options_.on_output(line); });
    return;
  }
  std::string out = "[";
  if (!role_.host.empty()) out += "host " + role_.host + " ";
  out += "worker " + std::to_string(w.pid());
  if (running != nullptr)
    out += running->name.empty() ? " task " + std::to_string(running->shown_id()) : " task '" + running->name + "'";
  out += "] ";
  out += text;
  out += '\n';
  // One write a line: lines of several workers never mix.
  std::size_t at = 0;
  while (at < out.size()) {
    const ssize_t n = ::write(stream == 1 ? STDOUT_FILENO : STDERR_FILENO, out.data() + at, out.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    at += static_cast<std::size_t>(n);
  }
}

void pool_core::tell(task_event::kind what, const worker_slot& w, const pool_task& t, std::uint32_t items_threw,
                     std::string_view error) const {
  tell_task(observer(), what, t.facts(w.pid()), items_threw, error);
}

namespace {
// A thread running a pass of the pool's loop holds its loop_mu_: a future
// the pass polls (an observer's, a callback's) runs no other pass.
using pass_scope = loop_scope<pool_core>;
}  // namespace

void pool_core::shutdown(shutdown_options how) {
  close_intake(intake_, how, [this] { wake(); });
  // From a callback the pool runs (on_done, an observer): the pass that
  // runs it goes on once it returns, and the loop finishes the shutdown,
  // as a callback on the manager thread does.
  if (!how.wait || pass_scope::in(this)) return;
  if (role_.loop == driver::caller) {
    while (turn(std::chrono::milliseconds(100))) {
    }
  } else {
    manager_.join();
  }
}

bool pool_core::runs_its_loop_here() const { return pass_scope::in(this) || manager_.is_current(); }

bool pool_core::is_shutdown() const { return intake_.is_closed(); }

void pool_core::resize(std::size_t max_workers) {
  {
    mutex_lock lock(intake_.mu);
    max_workers_ = max_workers != 0 ? max_workers : cpu_count();
  }
  wake();
}

std::size_t pool_core::max_workers() const { return max_workers_.load(); }

std::vector<int> pool_core::worker_pids() const {
  mutex_lock lock(intake_.mu);
  return pids_;
}

void pool_core::wake() {
  if (role_.loop == driver::caller) return;  // the one thread is not waiting
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_.get(), &one, sizeof one);
}

void pool_core::publish_pids() {
  std::vector<int> pids;
  for (const auto& w : workers_) pids.push_back(w->pid());
  mutex_lock lock(intake_.mu);
  pids_ = std::move(pids);
}

std::map<std::string, std::string> pool_core::worker_env() const {
  std::map<std::string, std::string> env = options_.env;
  env.merge(inner_thread_variables(options_, cpu_count(), max_workers_.load(std::memory_order_relaxed)));
  return env;
}

std::string pool_core::hello_body(std::map<std::string, std::string> env) const {
  protocol::worker_config config;
  config.env = std::move(env);
  config.policy = snapshot_module_policy();
  config.max_message_size = options_.max_message_size;
  config.shared_memory_threshold = options_.shared_memory_threshold;
  config.max_worker_memory = options_.max_worker_memory;
  config.spin_us = static_cast<std::uint64_t>(std::max<std::int64_t>(options_.spin.count(), 0));
  if (initializer_.empty()) initializer_ = protocol::encode_initializer(options_.initializer);
  return protocol::encode_hello(key_, config, initializer_);
}

std::size_t pool_core::live_workers() const {
  return static_cast<std::size_t>(
      std::count_if(workers_.begin(), workers_.end(), [](const auto& w) { return w->alive(); }));
}

std::size_t pool_core::ready_workers() const {
  return static_cast<std::size_t>(
      std::count_if(workers_.begin(), workers_.end(), [](const auto& w) { return w->ready(); }));
}

bool pool_core::any_ready_worker() const {
  return std::any_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->ready(); });
}

void pool_core::start_failed(const std::string& message, bool lasting) {
  if (retry_.failed(lasting, any_ready_worker(), clock::now()) == start_retry::verdict::hopeless) {
    const auto error = std::make_exception_ptr(worker_start_error(message));
    intake_.fail_pending(error);
    fail_actor_calls(error, true);
  }
}

void pool_core::start_worker() {
  if (!start_directory_) start_directory_.emplace(::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  const int directory = start_directory_->get();
  std::vector<int> inherited{wake_fd_.get()};
  if (directory >= 0) inherited.push_back(directory);
  for (const auto& w : workers_) w->append_descriptors(inherited);
  // Read once per worker: cpu_count() reads the cgroup's files.
  std::map<std::string, std::string> env = worker_env();
  launched_worker l;
  try {
    l = launch_worker(options_.start, program_, {options_.unset_env, env, directory}, inherited,
                      captures_output());
  } catch (const launch_error& e) {
    // Out of processes or descriptors, or no program to run. With no worker
    // alive nothing would serve the queue meanwhile, so that fails it too.
    start_failed(e.what(), e.lasting() || live_workers() == 0);
    return;
  }
  // A worker under a memory limit would count the mappings of reused files.
  const connection::settings channel{options_.max_message_size, options_.shared_memory_threshold,
                                     options_.max_worker_memory == 0};
  auto& w = workers_.emplace_back(std::make_unique<worker_slot>(std::move(l), key_, channel));
  if (role_.keeps_spare_bodies) w->keep_spare_bodies_in(&spare_);
  try {
    w->send_hello(hello_body(std::move(env)));
  } catch (const std::exception& e) {
    w->kill(std::string("could not be configured: ") + e.what());
  }
  publish_pids();
}

void pool_core::cancel_children(std::uint64_t parent) {
  std::deque<pool_task> orphans;
  {
    mutex_lock lock(intake_.mu);
    for (auto it = intake_.pending.begin(); it != intake_.pending.end();) {
      if (it->parent != parent) {
        ++it;
        continue;
      }
      orphans.push_back(std::move(*it));
      it = intake_.pending.erase(it);
    }
  }
  for (pool_task& t : orphans) t.state->fail(std::make_exception_ptr(cancelled_error()));
}

void pool_core::requeue(std::deque<pool_task>& tasks) {
  if (tasks.empty()) return;
  if (!actors_.empty()) return_to_homes(tasks);
  if (tasks.empty()) return;
  ++nested_queued_;
  mutex_lock lock(intake_.mu);
  for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) intake_.put_back(std::move(*it));
  tasks.clear();
}

void pool_core::dispatch(bool helping) {
  dispatched_at_ = clock::now();
  dispatch_pass pass;
  pass.helping = helping;
  if (!helping) {
    help_waiting_workers(pass);
    send_all_actor_calls(pass);
  }
  {
    mutex_lock lock(intake_.mu);
    while (!intake_.pending.empty()) {
      if (helping) {
        const pool_task& front = intake_.pending.front();
        if (front.actor.what != actor_route::part::none || front.parent != 0 ||
            front.body.size() > max_pipelined_inline || front.goes_alone(options_.shared_memory_threshold))
          break;
      }
      if (intake_.pending.front().actor.what != actor_route::part::none) {
        pool_task t = std::move(intake_.pending.front());
        intake_.pending.pop_front();
        lock.unlock();
        take_actor_task(std::move(t), pass);
        lock.lock();
        continue;
      }
      const placement where = place(intake_.pending.front());
      if (where.start_worker) {
        if (helping) break;
        lock.unlock();
        start_worker();
        lock.lock();
        continue;
      }
      if (where.worker == nullptr) break;
      pool_task t = std::move(intake_.pending.front());
      intake_.pending.pop_front();
      if (!t.started && !t.state->start()) continue;  // cancelled while queued
      t.started = true;
      lock.unlock();
      std::optional<pool_task> back = send_to(*where.worker, std::move(t), pass);
      lock.lock();
      if (back) {
        ++nested_queued_;
        intake_.put_back(std::move(*back));  // for another worker
      }
    }
  }
  bool lost = false;
  for (worker_slot* w : pass.sent_to) lost = flush_to(*w, pass.started) || lost;
  for (auto [w, id] : pass.started)
    if (!w->in_flight().empty() && w->in_flight().front().id == id)
      tell(task_event::kind::started, *w, w->in_flight().front());
  if (lost) dispatch(helping);  // what a broken channel gave back, to the others
}

pool_core::placement pool_core::place(const pool_task& front) {
  const auto idle = std::find_if(workers_.begin(), workers_.end(),
                                 [](const auto& w) { return w->state() == worker_slot::phase::idle; });
  if (idle != workers_.end()) return {idle->get(), false};
  const auto starting = static_cast<std::size_t>(std::count_if(
      workers_.begin(), workers_.end(), [](const auto& w) { return w->state() == worker_slot::phase::starting; }));
  if (starting < intake_.pending.size() && live_workers() < max_workers_ && retry_.may_start(dispatched_at_))
    return {nullptr, true};
  // With its output captured, a worker is sent nothing before it answers:
  // lines read before its result are then surely its running task's. (No
  // worker at all: a start is waiting for its retry time.)
  if (starting == 0 && !workers_.empty() && !captures_output()) return {pipelined_worker(front), false};
  return {};
}

worker_slot* pool_core::pipelined_worker(const pool_task& front) {
  // Full and all busy: queue behind the least loaded running task.
  const auto load = [](const auto& w) {
    const pool_task* t = w->innermost();
    return t != nullptr && t->waiting ? SIZE_MAX : w->in_flight().size();
  };
  worker_slot& w = **std::min_element(workers_.begin(), workers_.end(),
                                      [&](const auto& a, const auto& b) { return load(a) < load(b); });
  // Deeper than two only while the queue is longer than the pool: a few
  // tasks wait in the pool, where they can still be cancelled and go to
  // whichever worker frees first.
  const std::size_t depth = intake_.pending.size() > workers_.size() ? w.pipeline_depth(clock::now()) : 2;
  if (!may_queue_behind(w, front, depth) ||
      (options_.max_tasks_per_worker != 0 && w.tasks_sent() >= options_.max_tasks_per_worker))
    return nullptr;
  return &w;
}

bool pool_core::may_queue_behind(const worker_slot& w, const pool_task& t, std::size_t depth) const {
  // Never behind a task that waits for a nested task (such a worker is
  // sent only that task's children); with output captured, never at all
  // (see place).
  const pool_task* running = w.innermost();
  return w.state() == worker_slot::phase::busy && !captures_output() &&
         (running == nullptr || !running->waiting) && w.in_flight().size() < depth &&
         t.body.size() <= max_pipelined_inline && !t.goes_alone(options_.shared_memory_threshold) &&
         w.queued_bytes() + t.body.size() <= max_queued_bytes;
}

std::optional<pool_task> pool_core::send_to(worker_slot& w, pool_task t, dispatch_pass& pass) {
  // A message that goes alone carries descriptors: what waits for this
  // worker goes first; if that fails, this task goes back too.
  if (t.goes_alone(options_.shared_memory_threshold) && w.has_output() && flush_to(w, pass.started)) return t;
  const std::uint64_t id = t.id;
  const bool runs_at_once = w.in_flight().empty();
  // A nested task's result goes on to the worker that submitted it: as
  // bytes, not descriptors.
  const bool pass_buffers = role_.pass_buffers && t.parent == 0;
  std::optional<pool_task> unsent =
      w.send_task(std::move(t), pass_buffers ? protocol::flag_pass_buffers : std::uint8_t{0});
  if (!unsent) {
    if (runs_at_once) pass.started.emplace_back(&w, id);
    if (w.has_output() && std::find(pass.sent_to.begin(), pass.sent_to.end(), &w) == pass.sent_to.end())
      pass.sent_to.push_back(&w);
  }
  return unsent;
}

bool pool_core::flush_to(worker_slot& w, std::vector<std::pair<worker_slot*, std::uint64_t>>& started) {
  std::vector<pool_task> unsent = w.flush();
  if (unsent.empty()) return false;
  std::erase_if(started, [&](const auto& s) {
    return s.first == &w && std::none_of(w.in_flight().begin(), w.in_flight().end(),
                                         [&](const pool_task& t) { return t.id == s.second; });
  });
  std::deque<pool_task> back(std::make_move_iterator(unsent.begin()), std::make_move_iterator(unsent.end()));
  requeue(back);
  return true;
}

void pool_core::on_message(worker_slot& w, message& m) {
  switch (m.header.type) {
    case protocol::kind::ready:
      if (w.state() == worker_slot::phase::starting) {
        w.became_ready(clock::now());
        retry_.succeeded();
        tell_worker(observer(), worker_event::kind::started, w.pid());
      }
      return;
    case protocol::kind::start_failed:
      w.start_failed(std::string(m.body->view()));
      return;
    case protocol::kind::result: {
      if (w.innermost() == nullptr || w.innermost()->id != m.header.id)
        throw protocol_error("a result for a task the worker was not running");
      read_all_output(w, false);  // what it printed before its result is the task's
      const bool next_starts = w.running() == 1;
      pool_task done = w.finish(m.header.id, clock::now());
      done.state->finish(std::move(m.body));
      if (done.actor.what == actor_route::part::make) {
        // A constructor that threw: the actor is gone, its calls fail
        // with what it threw.
        if (std::exception_ptr threw = done.state->error()) {
          const auto home = actors_.find(done.actor.id);
          if (home != actors_.end() && home->second.worker == &w) {
            home->second.death = threw;
            home->second.worker = nullptr;
            w.release_actor();
          }
        }
      }
      if (observer() != nullptr) {
        tell(task_event::kind::finished, w, done, items_that_threw(*done.state, done.items));
        if (next_starts && !w.in_flight().empty()) tell(task_event::kind::started, w, w.in_flight().front());
      }
      if ((m.header.flags & protocol::flag_retiring) != 0) {
        // Over its memory limit: it exits by itself, reading nothing more.
        w.exiting_by_itself();
        requeue(w.in_flight());
        tell_worker(observer(), worker_event::kind::recycled, w.pid(),
                    "its resident memory was over max_worker_memory after a task");
      } else if (w.state() == worker_slot::phase::idle && options_.max_tasks_per_worker != 0 &&
                 w.tasks_done() >= options_.max_tasks_per_worker && !w.hosts_actors()) {
        w.retire();
        tell_worker(observer(), worker_event::kind::recycled, w.pid(), "it ran max_tasks_per_worker tasks");
      }
      return;
    }
    case protocol::kind::submit:
      enqueue_nested(w, m);
      return;
    case protocol::kind::waiting:
    case protocol::kind::resumed:
      w.set_waiting(m.header.id, m.header.type == protocol::kind::waiting);
      return;
    case protocol::kind::began: {
      read_all_output(w, false);  // what the task below printed before it began this one
      const pool_task& t = w.began(m.header.id, clock::now());
      if (observer() != nullptr) tell(task_event::kind::started, w, t);
      return;
    }
    default:
      throw protocol_error("a message of an unexpected kind from a worker");
  }
}

void pool_core::enqueue_nested(worker_slot& w, message& m) {
  const pool_task* parent = w.innermost();
  if (parent == nullptr) throw protocol_error("a nested task from a worker running none");
  protocol::decoded_submit d = protocol::decode_submit(m.body->view());
  const task_settings settings{d.timeout, d.name, d.priority};
  std::shared_ptr<future_state> state;
  protocol::encoded_task task;
  task.body = std::move(d.body);
  if (std::exception_ptr why = refusal(task, options_)) {
    state = failed_state(why);
  } else {
    try {
      state = enqueue(std::move(task.body), {}, settings, 1, 0, parent->id);
      ++nested_queued_;
    } catch (const pool_shutdown_error&) {
      state = failed_state(std::current_exception());
    }
  }
  // Its result goes to the worker that submitted it, once known, from the
  // manager's next pass (a nested task's state is finished by the manager,
  // or by a shutdown that cancels what is queued, on the caller's thread).
  const std::weak_ptr<future_state> weak = state;
  state->on_done([this, worker = w.pid(), id = m.header.id, weak] {
    std::shared_ptr<future_state> done = weak.lock();
    if (!done) return;
    {
      mutex_lock lock(intake_.mu);
      replies_.push_back({worker, id, std::move(done)});
      has_replies_.store(true, std::memory_order_release);
    }
    wake();
  });
}

void pool_core::send_nested_results() {
  if (!has_replies_.load(std::memory_order_acquire)) return;
  std::vector<nested_reply> replies;
  {
    mutex_lock lock(intake_.mu);
    has_replies_.store(false, std::memory_order_relaxed);
    replies.swap(replies_);
  }
  for (const nested_reply& r : replies) {
    // A worker gone since: the task that waited for it ended with it.
    const auto w = std::find_if(workers_.begin(), workers_.end(),
                                [&](const auto& x) { return x->pid() == r.worker && x->ready(); });
    if (w == workers_.end()) continue;
    if (const std::exception_ptr error = r.state->error())
      (*w)->send_nested_result(r.id, protocol::encode_whole_failure(record_of(error)));
    else
      (*w)->send_nested_result(r.id, r.state->result()->view());
  }
}

void pool_core::help_waiting_workers(dispatch_pass& pass) {
  for (auto& w : workers_) {
    if (w->waiting_for_children() == nullptr) continue;
    pool_task& waiting = *w->innermost();
    if (waiting.no_child_at == nested_queued_) continue;  // none came since it looked
    const std::uint64_t parent = waiting.id;
    std::optional<pool_task> child;
    {
      mutex_lock lock(intake_.mu);
      // The most recent child first: the one whose own children, if it
      // has any, come next, so that the stack grows with the recursion
      // rather than across it.
      for (auto it = intake_.pending.rbegin(); it != intake_.pending.rend(); ++it) {
        if (it->parent != parent) continue;
        pool_task t = std::move(*it);
        intake_.pending.erase(std::next(it).base());
        if (!t.started && !t.state->start()) break;  // cancelled while queued; the next pass looks again
        t.started = true;
        child = std::move(t);
        break;
      }
    }
    if (!child) {
      waiting.no_child_at = nested_queued_;
      continue;
    }
    std::optional<pool_task> back = send_to(*w, std::move(*child), pass);
    if (back) {
      std::deque<pool_task> one;
      one.push_back(std::move(*back));
      requeue(one);
    }
  }
}

void pool_core::on_exit(worker_slot& w) {
  const exit_facts facts = w.reap(handler_);
  read_all_output(w, true);  // what it wrote before dying, its running task's
  // Only the front task can have run; the ones queued behind it never
  // started (a worker reads its next task after writing its result).
  std::deque<pool_task>& in_flight = w.in_flight();
  std::deque<pool_task> unstarted;
  while (in_flight.size() > std::max<std::size_t>(w.running(), 1)) {
    unstarted.push_front(std::move(in_flight.back()));
    in_flight.pop_back();
  }
  if (facts.stopped_by_shutdown) {
    for (pool_task& t : unstarted) t.state->fail(cancelled_by_shutdown());
    unstarted.clear();
  }
  requeue(unstarted);  // an actor's, to its home
  if (!actors_.empty())
    lose_actors(w, facts.stopped_by_shutdown
                       ? stopped_by_shutdown()
                       : std::make_exception_ptr(worker_died_error(
                             w.pid(), "held the actor, which was lost with it: it " + describe_status(facts.status) +
                                          " (actor_options::max_restarts has an actor made again)")));
  // The running tasks: one, or a stack of them while tasks waited for
  // nested tasks. The nested tasks they submitted that are still queued
  // have no one left to wait for them.
  std::deque<pool_task> running;
  running.swap(in_flight);
  if (!running.empty()) {
    const std::exception_ptr error = running_task_error(facts, options_);
    for (auto it = running.rbegin(); it != running.rend(); ++it) {
      it->state->fail(error);
      if (observer() != nullptr) tell(task_event::kind::failed, w, *it, 0, what_of(error));
      cancel_children(it->id);
    }
  }
  if (observer() != nullptr)
    tell_worker(observer(), worker_event::kind::exited, w.pid(), "it " + describe_status(facts.status));
  if (const std::optional<start_failure> f = why_not_started(facts))
    start_failed("ferry: a worker could not start: " + f->why, f->lasting);
}

void pool_core::enforce_timers(clock::time_point now) {
  spare_.expire(now);
  std::size_t surplus = 0;
  bool kill_running = false;
  bool work_waiting = false;
  // Only workers that said ready count against a smaller max_workers:
  // counting those still starting too, a pool resized down while workers
  // started retired each one that had become ready in favour of one that
  // had not, which in its turn was retired once ready, and tasks waited
  // through that chain
  // (Workers.ResizingDownWhileWorkersStartKeepsTheReadyOneServing).
  const std::size_t ready = ready_workers();
  {
    mutex_lock lock(intake_.mu);
    kill_running = intake_.kill_running();
    surplus = ready > max_workers_ ? ready - max_workers_ : 0;
    work_waiting = !intake_.pending.empty();
  }
  for (auto& w : workers_) {
    // Whatever it runs, even if it is ending for another cause: shutdown's
    // cause ranks first, so its tasks are cancelled, not sent again.
    if (kill_running && !w->in_flight().empty() && !w->reaped() && !w->stopped_by_shutdown())
      w->kill_for_shutdown();
    std::optional<worker_slot::deadline> due;
    w->each_deadline(limits_, [&](worker_slot::deadline d, clock::time_point at) {
      if (now >= at && !due) due = d;
    });
    if (w->state() == worker_slot::phase::idle && surplus > 0 && !w->hosts_actors()) {
      --surplus;
      w->retire();
      continue;
    }
    if (!due) continue;
    switch (*due) {
      case worker_slot::deadline::exit_grace:
        // Its channel is gone but the process lives on (a task that ran
        // exec): it can never answer.
        w->kill("closed its connection to the pool while its process lived on (did the task exec "
                "another program, or close the pool's descriptor?); the pool killed it");
        break;
      case worker_slot::deadline::start_timeout:
        // A worker that never says ready (hung before serving) must not hold
        // the pending tasks forever.
        w->kill("did not become ready within " + std::to_string(start_retry::start_timeout.count()) + " s");
        break;
      case worker_slot::deadline::task_timeout:
        w->kill_for_timeout();
        break;
      case worker_slot::deadline::stop_grace:
        w->kill_for_cancel();
        break;
      case worker_slot::deadline::idle_timeout:
        // Not while tasks wait: the next dispatch gives it one. A worker
        // that just said ready is idle until then, and with a short
        // idle_timeout (0) each new worker was retired before its first
        // task, forever.
        if (!work_waiting) w->retire();
        break;
    }
  }
}

std::optional<pool_core::clock::time_point> pool_core::next_timer(clock::time_point now) const {
  std::optional<clock::time_point> next;
  auto consider = [&](clock::time_point t) { next = next ? std::min(*next, t) : t; };
  for (const auto& w : workers_)
    w->each_deadline(limits_, [&](worker_slot::deadline, clock::time_point at) { consider(at); });
  // From the time dispatch decided not to start a worker yet: a retry due
  // between that and `now` is still to be tried, not forgotten.
  if (const auto retry = retry_.next_try(std::min(now, dispatched_at_))) consider(*retry);
  if (const auto spare = spare_.expiry()) consider(*spare);
  return next;
}

bool pool_core::finished_shutting_down() {
  mutex_lock lock(intake_.mu);
  if (!intake_.closed() || !intake_.pending.empty()) return false;
  return std::none_of(workers_.begin(), workers_.end(), [](const auto& w) { return !w->in_flight().empty(); }) &&
         std::all_of(actors_.begin(), actors_.end(), [](const auto& a) { return a.second.calls.empty(); });
}

void pool_core::stop_all_workers() {
  for (auto& w : workers_)
    if (w->alive()) w->retire();
  const auto deadline = clock::now() + std::chrono::seconds(5);
  while (!workers_.empty()) {
    std::vector<pollfd> fds;
    for (const auto& w : workers_) fds.push_back({w->pidfd(), POLLIN, 0});
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0) {
      for (auto& w : workers_) w->stop();  // then reaped below
    }
    if (::poll(fds.data(), fds.size(), left > 0 ? static_cast<int>(left) : 100) < 0 && errno != EINTR)
      break;
    for (std::size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents != 0) on_exit(*workers_[i]);
    std::erase_if(workers_, [](const auto& w) { return w->reaped(); });
  }
  publish_pids();
}

void pool_core::start_workers() {
  for (std::size_t n = live_workers(), most = max_workers(); n < most; ++n) start_worker();
}

bool pool_core::turn(std::chrono::microseconds timeout) {
  return pass(std::max(timeout, std::chrono::microseconds(0)));
}

bool pool_core::pass(std::optional<clock::duration> most) {
  mutex_lock loop(loop_mu_);
  if (stopped_) return false;
  bool more = false;
  {
    pass_scope scope(this, stops_.get());
    try {
      more = serve_once(most);
    } catch (...) {
      // Nothing is expected to get here; if something does, no future may
      // be left waiting and no worker left running.
      fail_everything(std::current_exception());
    }
  }
  if (more) return true;
  stop_all_workers();
  stopped_ = true;
  return false;
}

void pool_core::fail_everything(std::exception_ptr error) {
  {
    mutex_lock lock(intake_.mu);
    intake_.close({});
  }
  intake_.fail_pending(error);
  fail_actor_calls(error, false);
  for (auto& w : workers_) {
    for (pool_task& t : w->in_flight()) t.state->fail(error);
    w->in_flight().clear();
  }
}

void pool_core::fill_fds(std::vector<pollfd>& fds, bool idle_sockets) const {
  fds.clear();
  fds.push_back({wake_fd_.get(), POLLIN, 0});
  for (const auto& w : workers_) {
    // An idle worker sends nothing until it is sent a task (its death shows
    // on its pidfd); one sent a task by a helping pass is polled by that
    // pass, until announce().
    const bool idle = w->state() == worker_slot::phase::idle;
    fds.push_back({idle && !idle_sockets ? -1 : w->socket(), POLLIN, 0});  // -1: ignored
    fds.push_back({w->pidfd(), POLLIN, 0});
    fds.push_back({w->output(1), POLLIN, 0});
    fds.push_back({w->output(2), POLLIN, 0});
  }
}

void pool_core::take_ready(const std::vector<pollfd>& fds, bool helping) {
  if (fds[0].revents != 0) {
    std::uint64_t count;
    [[maybe_unused]] const ssize_t n = ::read(wake_fd_.get(), &count, sizeof count);
  }
  const std::size_t n = (fds.size() - 1) / 4;  // workers started since are not in fds
  for (std::size_t i = 0; i < n; ++i) {
    worker_slot& w = *workers_[i];
    const pollfd* mine = &fds[1 + 4 * i];
    if (mine[2].revents != 0 || mine[3].revents != 0) read_all_output(w, false);
    if (mine[0].revents != 0) w.read(handler_);
    if (mine[1].revents != 0) on_exit(w);
  }
  const std::size_t before = workers_.size();
  std::erase_if(workers_, [](const auto& w) { return w->reaped(); });
  if (workers_.size() != before) publish_pids();
  if (!helping) send_nested_results();  // a nested result may be large: its write may block
  const clock::time_point end = clock::now();
  take_stop_requests(end);
  enforce_timers(end);
}

bool pool_core::serve_once(std::optional<clock::duration> most) {
  ++passes_;
  // What helping passes sent before this one is polled from here on.
  unannounced_.store(false, std::memory_order_relaxed);
  dispatch();
  if (finished_shutting_down()) return false;
  fill_fds(fds_, false);
  const clock::time_point now = clock::now();
  std::optional<clock::duration> wait = most;
  if (const auto timer = next_timer(now)) {
    const clock::duration due = std::max(*timer - now, clock::duration::zero());
    wait = wait ? std::min(*wait, due) : due;
  }
  manager_wakes_at_ = wait ? now + *wait : clock::time_point::max();
  manager_workers_ = workers_.size();
  const std::uint64_t mine = passes_;
  int ready = 0;
  loop_mu_.unlock();  // while it sleeps, a thread that submits or waits may run a pass
  if (const clock::duration budget = spin_.budget(); budget > clock::duration::zero()) {
    // The low-latency mode (pool_options::spin): poll, yielding the CPU
    // between looks, before sleeping; never past a due timer.
    const clock::time_point until = now + (wait ? std::min(budget, *wait) : budget);
    timespec zero{};
    while ((ready = ::ppoll(fds_.data(), fds_.size(), &zero, nullptr)) == 0 && clock::now() < until)
      ::sched_yield();
  }
  if (ready == 0) {
    timespec ts{};
    if (wait) {
      const clock::duration left = std::max(*wait - (clock::now() - now), clock::duration::zero());
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      ts = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    }
    ready = ::ppoll(fds_.data(), fds_.size(), wait ? &ts : nullptr, nullptr);
  }
  const int poll_errno = errno;
  loop_mu_.lock();
  if (ready < 0 && poll_errno != EINTR)
    throw error(std::string("ferry: the pool's poll failed: ") + std::strerror(poll_errno));
  spin_.waited(clock::now() - now);
  // A helping pass ran meanwhile: it may have read what this poll saw, and
  // fds_ may name workers since gone. Look again, not waiting: the pass must
  // still do its part (the wake-up's count, nested results, a worker's
  // exit), however often helping passes come.
  if (passes_ != mine) {
    fill_fds(fds_, false);
    timespec zero{};
    if (::ppoll(fds_.data(), fds_.size(), &zero, nullptr) < 0)
      for (pollfd& p : fds_) p.revents = 0;
  }
  take_ready(fds_, false);
  return true;
}

bool pool_core::run_helping_pass(bool only_when_idle) {
  // Captured output is read before the result of the task that wrote it,
  // and handed to on_output on the manager's thread: the manager's alone.
  if (pass_scope::in_any() || captures_output()) return false;
  if (!loop_mu_.try_lock()) return false;
  // With `only_when_idle` (a submit), only while no worker runs a task.
  // Otherwise (a waiting thread), only while nothing waits in the queue:
  // tasks queued are the manager's (it was woken when the queue stopped
  // being empty), and a waiting thread that helped then would only contend
  // with it for the workers and the CPUs.
  const auto all_idle = [&] {
    return std::all_of(workers_.begin(), workers_.end(),
                       [](const auto& w) { return w->state() == worker_slot::phase::idle; });
  };
  const auto queue_empty = [&] {
    mutex_lock lock(intake_.mu);
    return intake_.pending.empty();
  };
  const bool ran = !stopped_ && (only_when_idle ? all_idle() : queue_empty());
  if (ran) {
    pass_scope scope(this, stops_.get());
    try {
      ++passes_;
      dispatch(true);
      fill_fds(help_fds_, true);
      help_fds_[0].fd = -1;  // the manager's wake-up is the manager's to read
      timespec zero{};
      if (::ppoll(help_fds_.data(), help_fds_.size(), &zero, nullptr) > 0) take_ready(help_fds_, true);
      unannounced_.store(true, std::memory_order_relaxed);
      // Wake the manager where its sleep no longer covers what is left:
      // tasks still queued (large ones, actors' calls, for a worker to
      // start, or behind busy workers it may not poll), nested results to
      // send, a worker gone, a timer due sooner (a task's timeout).
      bool queued = has_replies_.load() || !actors_.empty();
      {
        mutex_lock lock(intake_.mu);
        queued = queued || !intake_.pending.empty();
      }
      const auto timer = next_timer(clock::now());
      if (queued || workers_.size() != manager_workers_ || (timer && *timer < manager_wakes_at_)) wake();
    } catch (...) {
      fail_everything(std::current_exception());
      wake();
    }
  }
  loop_mu_.unlock();
  return ran;
}

void pool_core::announce() {
  if (unannounced_.exchange(false, std::memory_order_relaxed)) wake();
}

void pool_core::take_stop_requests(clock::time_point now) {
  for (const stop_inbox::request& r : stops_->take()) {
    bool found = false;
    for (auto& w : workers_) {
      for (pool_task& t : w->in_flight()) {
        if (t.id != r.id) continue;
        // Running, or queued behind the running task in that worker: it is
        // asked now, and has its grace from when it starts.
        t.stop_asked = now;
        t.stop_grace = r.grace;
        w->ask_to_stop(r.id);
        found = true;
      }
    }
    // Given back to the queue (its worker died before starting it), or
    // already ended.
    if (!found && !cancel_actor_call(r.id)) intake_.cancel_pending(r.id);
  }
}

}  // namespace ferry::detail
