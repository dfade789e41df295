// Copyright ferry authors.
#include "pool_core.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

#include "../serialize/hmac.h"
#include "executor/cpu_count.h"
#include "executor/errors.h"
#include "executor/worker.h"
#include "launcher.h"
#include "serialize/module_policy.h"

namespace ferry::detail {
namespace {

// How long a started worker may take to say it is ready (its initializer
// included) before the pool gives up on it.
constexpr std::chrono::seconds start_timeout{30};
// After a worker could not be started while others run.
constexpr std::chrono::milliseconds start_retry_delay{500};
// After a worker died before it was ready (killed, say, by an OOM killer or
// an operator), starts are retried at once and then ever more slowly up to
// this, for as long as start_timeout; only then is the queue failed.
constexpr std::chrono::milliseconds max_start_backoff{1000};
constexpr std::size_t min_failed_starts = 3;
// A worker whose socket closed while its process lives on (a task that ran
// exec, or closed the descriptor) has this long to exit before it is killed.
constexpr std::chrono::milliseconds exit_grace{1000};
// When every worker is busy and the pool is at full size, a worker is sent
// its next task before it answers the current one, so that it starts that
// task as soon as it has written the result instead of a round trip later.
constexpr std::size_t pipeline_depth = 2;
// Only a message that fits in the socket's buffer without blocking is
// queued behind a running task (it is kept until the task starts, to be
// sent elsewhere if the worker dies first); a larger one waits for an idle
// worker.
constexpr std::size_t max_pipelined_inline = 32 * 1024;

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = ::sigabbrev_np(sig);
    return "was killed by signal " + std::to_string(sig) +
           (abbrev != nullptr ? std::string(" (SIG") + abbrev + ")" : std::string());
  }
  return "ended with wait status " + std::to_string(status);
}

}  // namespace

std::shared_ptr<future_state> failed_state(std::exception_ptr error) {
  auto state = std::make_shared<future_state>();
  state->fail(std::move(error));
  return state;
}

pool_core::pool_core(pool_options options, std::string initializer_record, driver d)
    : options_(std::move(options)),
      driver_(d),
      program_(options_.start == start_method::plugin
                   ? (options_.worker_program.empty() ? default_worker_program()
                                                      : options_.worker_program.string())
                   : std::string("/proc/self/exe")),
      key_((initialize_crypto(), new_pool_key())),
      initializer_(std::move(initializer_record)),
      max_workers_(options_.max_workers != 0 ? options_.max_workers : cpu_count()) {
  if (is_worker_process())
    throw error("ferry: a process_pool cannot be created inside a pool's worker process; "
                "nested pools are not supported");
  // With the effective ids, as exec will check: a process whose real uid
  // differs (a setuid program) may still run the worker.
  if (options_.start == start_method::plugin &&
      ::faccessat(AT_FDCWD, program_.c_str(), X_OK, AT_EACCESS) != 0)
    throw worker_start_error("ferry: the worker program '" + program_ +
                             "' for start_method::plugin is not an executable file; set "
                             "pool_options::worker_program or $FERRY_WORKER");
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw error(std::string("ferry: eventfd: ") + std::strerror(errno));
  if (driver_ == driver::own_thread) manager_ = std::thread([this] { while (pass(std::nullopt)) {} });
}

pool_core::~pool_core() {
  shutdown({});
  ::close(wake_fd_);
}

std::shared_ptr<future_state> pool_core::submit_task(const task_writer& task, std::uint32_t count) {
  auto encoded = encode_or_fail(task, count);
  if (auto* failed = std::get_if<std::shared_ptr<future_state>>(&encoded)) return *failed;
  return submit(std::get<protocol::encoded_task>(std::move(encoded)));
}

std::shared_ptr<future_state> pool_core::submit(protocol::encoded_task encoded) {
  if (encoded.names_main_program && options_.start == start_method::plugin) {
    return failed_state(std::make_exception_ptr(not_shippable_error(
        "ferry: the task's code is in the main executable, which a plugin worker "
        "(ferry-worker) cannot load; put the code in a shared library, or use "
        "start_method::spawn or start_method::fork")));
  }
  if (encoded.body.size() > options_.max_message_size) {
    return failed_state(std::make_exception_ptr(error(
        "ferry: the task's message of " + std::to_string(encoded.body.size()) +
        " bytes exceeds pool_options::max_message_size (" +
        std::to_string(options_.max_message_size) + " bytes); nothing was sent")));
  }
  auto state = std::make_shared<future_state>();
  {
    std::lock_guard lock(mu_);
    intake_.pending.push_back({intake_.admit(), std::move(encoded.body), state});
  }
  wake();
  return state;
}

void pool_core::shutdown(shutdown_options how) {
  std::deque<task> cancelled;
  {
    std::lock_guard lock(mu_);
    cancelled = intake_.close(how);
  }
  for (task& t : cancelled) t.state->fail(cancelled_by_shutdown());
  wake();
  if (how.wait && driver_ == driver::caller) {
    while (turn(std::chrono::milliseconds(100))) {
    }
  } else if (how.wait && std::this_thread::get_id() != manager_.get_id()) {
    std::lock_guard lock(join_mu_);
    if (manager_.joinable()) manager_.join();
  }
}

bool pool_core::is_shutdown() const {
  std::lock_guard lock(mu_);
  return intake_.closed();
}

void pool_core::resize(std::size_t max_workers) {
  {
    std::lock_guard lock(mu_);
    max_workers_ = max_workers != 0 ? max_workers : cpu_count();
  }
  wake();
}

std::size_t pool_core::max_workers() const {
  std::lock_guard lock(mu_);
  return max_workers_;
}

std::vector<int> pool_core::worker_pids() const {
  std::lock_guard lock(mu_);
  return pids_;
}

void pool_core::wake() {
  if (driver_ == driver::caller) return;  // the one thread is not waiting
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

void pool_core::publish_pids() {
  std::vector<int> pids;
  for (const auto& w : workers_) pids.push_back(w->pid);
  std::lock_guard lock(mu_);
  pids_ = std::move(pids);
}

void pool_core::fail_pending(std::exception_ptr error) {
  std::deque<task> failed;
  {
    std::lock_guard lock(mu_);
    failed.swap(intake_.pending);
  }
  for (task& t : failed) t.state->fail(error);
}

std::string pool_core::hello_body() const {
  protocol::worker_config config;
  config.env = options_.env;
  for (const auto& p : allowed_modules()) config.allowed_modules.push_back(p.string());
  for (const auto& p : module_search_paths()) config.module_search_paths.push_back(p.string());
  config.max_message_size = options_.max_message_size;
  config.shared_memory_threshold = options_.shared_memory_threshold;
  config.max_worker_memory = options_.max_worker_memory;
  if (initializer_.empty()) initializer_ = protocol::encode_initializer(options_.initializer);
  return protocol::encode_hello(key_, config, initializer_);
}

std::size_t pool_core::live_workers() const {
  return static_cast<std::size_t>(
      std::count_if(workers_.begin(), workers_.end(), [](const auto& w) { return w->alive(); }));
}

bool pool_core::any_ready_worker() const {
  return std::any_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->ready(); });
}

void pool_core::start_failed(const std::string& message, bool lasting) {
  const clock::time_point now = clock::now();
  if (failed_starts_++ == 0) failing_since_ = now;
  // Workers that did start serve the queue; a failure that will not pass by
  // itself, or one that has gone on for start_timeout, fails it.
  const bool hopeless =
      lasting || (failed_starts_ >= min_failed_starts && now - failing_since_ >= start_timeout);
  if (hopeless && !any_ready_worker()) {
    fail_pending(std::make_exception_ptr(worker_start_error(message)));
    failed_starts_ = 0;
    return;
  }
  const auto backoff = std::min<std::chrono::milliseconds>(
      max_start_backoff, std::chrono::milliseconds(5 << std::min<std::size_t>(failed_starts_ - 1, 10)));
  start_retry_at_ = now + (lasting ? start_retry_delay : backoff);
}

void pool_core::start_worker() {
  std::vector<int> inherited{wake_fd_};
  for (const auto& w : workers_) {
    inherited.push_back(w->socket);
    inherited.push_back(w->pidfd);
  }
  launched_worker l{};
  try {
    l = launch_worker(options_.start, program_, options_.unset_env, inherited);
  } catch (const launch_error& e) {
    // Out of processes or descriptors, or no program to run. With no worker
    // alive nothing would serve the queue meanwhile, so that fails it too.
    start_failed(e.what(), e.lasting() || live_workers() == 0);
    return;
  }
  auto& w = workers_.emplace_back(
      std::make_unique<worker>(l.pid, l.socket, l.pidfd, key_, options_.max_message_size));
  try {
    // The hello carries the key, so it is the one message sent unsigned.
    write_message(w->socket, nullptr, protocol::kind::hello, 0, hello_body(),
                  options_.shared_memory_threshold);
  } catch (const std::exception& e) {
    kill_worker(*w, std::string("could not be configured: ") + e.what());
  }
  publish_pids();
}

void pool_core::kill_worker(worker& w, std::string why) {
  if (w.failure.empty()) w.failure = std::move(why);
  ::kill(w.pid, SIGKILL);
  w.state = worker::phase::retiring;
}

void pool_core::retire(worker& w) {
  w.state = worker::phase::retiring;
  try {
    write_message(w.socket, &w.auth, protocol::kind::exit, 0, {});
  } catch (const protocol_error&) {
    ::kill(w.pid, SIGKILL);
  }
}

void pool_core::send_task(worker& w, task& t) {
  try {
    write_message(w.socket, &w.auth, protocol::kind::task, t.id, t.body,
                  options_.shared_memory_threshold);
    // A task that runs at once no longer needs its body; one queued behind
    // another keeps it until it starts, to be sent elsewhere if the worker
    // dies first.
    if (w.in_flight.empty()) {
      t.body = std::string();
      w.since = clock::now();
    }
    w.state = worker::phase::busy;
    ++w.tasks_sent;
    w.in_flight.push_back(std::move(t));
  } catch (const protocol_error& e) {
    // The worker is gone. If the task was to run at once, whether it reached
    // the worker is unknown: it fails rather than risk running twice (policy
    // in docs/api/executor.md). Queued behind another, it is sent elsewhere.
    w.in_flight.push_back(std::move(t));
    kill_worker(w, std::string("closed its connection before it received the task (") + e.what() + ")");
  }
}

// Tasks a worker was sent but never started go back to the front of the
// queue, in their order.
void pool_core::requeue(std::deque<task>& tasks) {
  if (tasks.empty()) return;
  std::lock_guard lock(mu_);
  for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) intake_.pending.push_front(std::move(*it));
  tasks.clear();
}

void pool_core::dispatch() {
  std::unique_lock lock(mu_);
  while (!intake_.pending.empty()) {
    auto idle = std::find_if(workers_.begin(), workers_.end(),
                             [](const auto& w) { return w->state == worker::phase::idle; });
    const std::size_t alive = live_workers();
    const auto starting = static_cast<std::size_t>(std::count_if(
        workers_.begin(), workers_.end(), [](const auto& w) { return w->state == worker::phase::starting; }));
    if (idle == workers_.end() && starting < intake_.pending.size() && alive < max_workers_ &&
        clock::now() >= start_retry_at_) {
      lock.unlock();
      start_worker();
      lock.lock();
      continue;
    }
    if (idle == workers_.end() && starting == 0 && !workers_.empty()) {
      // Full and all busy: queue behind the least loaded running task. (No
      // worker at all: a start is waiting for its retry time.)
      if (intake_.pending.front().body.size() <= max_pipelined_inline) {
        idle = std::min_element(workers_.begin(), workers_.end(), [](const auto& a, const auto& b) {
          return a->in_flight.size() < b->in_flight.size();
        });
        const worker& w = **idle;
        if (w.state != worker::phase::busy || w.in_flight.size() >= pipeline_depth || w.timed_out ||
            (options_.max_tasks_per_worker != 0 && w.tasks_sent >= options_.max_tasks_per_worker))
          idle = workers_.end();
      }
    }
    if (idle == workers_.end()) break;
    task t = std::move(intake_.pending.front());
    intake_.pending.pop_front();
    if (!t.started && !t.state->start()) continue;  // cancelled while queued
    t.started = true;
    lock.unlock();
    send_task(**idle, t);
    lock.lock();
  }
}

void pool_core::on_readable(worker& w) {
  try {
    for (;;) {
      const auto got = w.reader.fill(w.socket, true);
      while (std::optional<message> f = w.reader.next()) {
        switch (f->header.type) {
          case protocol::kind::ready:
            if (w.state == worker::phase::starting) {
              w.state = worker::phase::idle;
              w.since = clock::now();
              failed_starts_ = 0;
            }
            break;
          case protocol::kind::start_failed:
            w.start_failure = std::string(f->body->view());
            break;
          case protocol::kind::result:
            if (w.in_flight.empty() || w.in_flight.front().id != f->header.id)
              throw protocol_error("a result for a task the worker was not given");
            w.in_flight.front().state->finish(std::move(f->body));
            w.in_flight.pop_front();
            if (!w.in_flight.empty()) w.in_flight.front().body = std::string();  // started
            ++w.tasks_done;
            w.since = clock::now();  // the next task starts now, or idleness does
            if ((f->header.flags & protocol::flag_retiring) != 0) {
              // Over its memory limit: it exits by itself, reading nothing more.
              w.state = worker::phase::retiring;
              requeue(w.in_flight);
            } else if (w.state == worker::phase::busy && w.in_flight.empty()) {
              w.state = worker::phase::idle;
              if (options_.max_tasks_per_worker != 0 && w.tasks_done >= options_.max_tasks_per_worker)
                retire(w);
            }
            break;
          default:
            throw protocol_error("a message of an unexpected kind from a worker");
        }
      }
      if (got == message_reader::fill_result::end) {
        // Normally the process is exiting; enforce_timers kills it if not.
        w.socket_closed = true;
        w.closed_at = clock::now();
        return;
      }
      if (got == message_reader::fill_result::nothing) return;
    }
  } catch (const protocol_error& e) {
    w.socket_closed = true;
    kill_worker(w, std::string("was killed by the pool after a protocol error: ") + e.what());
  } catch (const authentication_failure& e) {
    // Whatever wrote that message may have written others: nothing more is
    // read from this worker.
    w.socket_closed = true;
    kill_worker(w, std::string("was killed by the pool as compromised: ") + e.what());
  }
}

void pool_core::on_exit(worker& w) {
  int status = 0;
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!w.socket_closed) on_readable(w);  // a result written just before exiting
  const std::string cause = w.failure.empty() ? describe_status(status) : w.failure;
  // Only the front task can have run; the ones queued behind it never
  // started (a worker reads its next task after writing its result).
  std::deque<task> unstarted;
  while (w.in_flight.size() > 1) {
    unstarted.push_front(std::move(w.in_flight.back()));
    w.in_flight.pop_back();
  }
  if (w.stopped_by_shutdown) {
    for (task& t : unstarted) t.state->fail(cancelled_by_shutdown());
    unstarted.clear();
  }
  requeue(unstarted);
  std::optional<task> current;
  if (!w.in_flight.empty()) {
    current = std::move(w.in_flight.front());
    w.in_flight.clear();
  }
  if (current) {
    if (w.stopped_by_shutdown) {
      current->state->fail(stopped_by_shutdown());
    } else if (w.timed_out) {
      current->state->fail(std::make_exception_ptr(task_timeout_error(
          "ferry: the task ran longer than the task_timeout of " +
          std::to_string(options_.task_timeout->count()) + " ms; its worker was killed")));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == protocol::authentication_status &&
               w.failure.empty()) {
      current->state->fail(std::make_exception_ptr(worker_died_error(
          w.pid, "exited because a message it received from the pool failed authentication "
                 "(forged, changed or replayed on the way)")));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == protocol::task_memory_status &&
               w.failure.empty()) {
      current->state->fail(std::make_exception_ptr(worker_died_error(
          w.pid, "was stopped because the task alone used more than max_worker_memory (" +
                     std::to_string(options_.max_worker_memory) + " bytes)")));
    } else {
      current->state->fail(std::make_exception_ptr(worker_died_error(w.pid, cause)));
    }
    current.reset();
  }
  if (w.state == worker::phase::starting) {
    // A worker killed by a signal before it was ready may start next time;
    // one that exited by itself, or whose initializer threw, will not.
    std::string why;
    bool lasting = true;
    if (WIFEXITED(status) && WEXITSTATUS(status) == protocol::no_entry_point_status) {
      why = "the program does not call ferry::serve_if_worker(argc, argv) at the top of main";
    } else if (!w.start_failure.empty()) {
      why = "its initializer failed: " + w.start_failure;
    } else if (!w.failure.empty()) {
      why = "it " + w.failure;
    } else {
      why = "it " + describe_status(status) + " before it was ready";
      lasting = WIFEXITED(status);
    }
    start_failed("ferry: a worker could not start: " + why, lasting);
  }
  ::close(w.socket);
  ::close(w.pidfd);
  w.pidfd = -1;
}

void pool_core::enforce_timers(clock::time_point now) {
  std::size_t surplus = 0;
  bool kill_running = false;
  const std::size_t alive = live_workers();
  {
    std::lock_guard lock(mu_);
    kill_running = intake_.kill_running();
    surplus = alive > max_workers_ ? alive - max_workers_ : 0;
  }
  for (auto& w : workers_) {
    // Its channel is gone but the process lives on (a task that ran exec):
    // it can never answer.
    if (w->socket_closed && w->failure.empty() && now - w->closed_at >= exit_grace)
      kill_worker(*w, "closed its connection to the pool while its process lived on (did the "
                      "task exec another program, or close the pool's descriptor?); the pool "
                      "killed it");
    // A worker that never says ready (hung before serving) must not hold the
    // pending tasks forever.
    if (w->state == worker::phase::starting && now - w->since >= start_timeout && w->failure.empty())
      kill_worker(*w, "did not become ready within " + std::to_string(start_timeout.count()) + " s");
    if (kill_running && w->state == worker::phase::busy && !w->stopped_by_shutdown) {
      w->stopped_by_shutdown = true;
      ::kill(w->pid, SIGKILL);
    }
    if (w->state == worker::phase::busy && options_.task_timeout && !w->timed_out &&
        now - w->since >= *options_.task_timeout) {
      w->timed_out = true;
      ::kill(w->pid, SIGKILL);
    }
    if (w->state == worker::phase::idle &&
        (surplus > 0 || now - w->since >= options_.idle_timeout)) {
      if (surplus > 0) --surplus;
      retire(*w);
    }
  }
}

std::optional<pool_core::clock::time_point> pool_core::next_timer(clock::time_point now) const {
  std::optional<clock::time_point> next;
  auto consider = [&](clock::time_point t) { next = next ? std::min(*next, t) : t; };
  for (const auto& w : workers_) {
    if (w->socket_closed && w->failure.empty()) consider(w->closed_at + exit_grace);
    if (w->state == worker::phase::starting) consider(w->since + start_timeout);
    if (w->state == worker::phase::busy && options_.task_timeout && !w->timed_out)
      consider(w->since + *options_.task_timeout);
    if (w->state == worker::phase::idle) consider(w->since + options_.idle_timeout);
  }
  if (start_retry_at_ > now) consider(start_retry_at_);
  return next;
}

bool pool_core::finished_shutting_down() {
  std::lock_guard lock(mu_);
  if (!intake_.closed() || !intake_.pending.empty()) return false;
  return std::none_of(workers_.begin(), workers_.end(),
                      [](const auto& w) { return !w->in_flight.empty(); });
}

void pool_core::stop_all_workers() {
  for (auto& w : workers_)
    if (w->state != worker::phase::retiring) retire(*w);
  const auto deadline = clock::now() + std::chrono::seconds(5);
  while (!workers_.empty()) {
    std::vector<pollfd> fds;
    for (const auto& w : workers_) fds.push_back({w->pidfd, POLLIN, 0});
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0) {
      for (auto& w : workers_) ::kill(w->pid, SIGKILL);  // then reaped below
    }
    if (::poll(fds.data(), fds.size(), left > 0 ? static_cast<int>(left) : 100) < 0 && errno != EINTR)
      break;
    for (std::size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents != 0) on_exit(*workers_[i]);
    std::erase_if(workers_, [](const auto& w) { return w->pidfd < 0; });
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
  if (stopped_) return false;
  bool more = false;
  try {
    more = serve_once(most);
  } catch (...) {
    // Nothing is expected to get here; if something does, no future may be
    // left waiting and no worker left running.
    fail_everything(std::current_exception());
  }
  if (more) return true;
  stop_all_workers();
  stopped_ = true;
  return false;
}

void pool_core::fail_everything(std::exception_ptr error) {
  {
    std::lock_guard lock(mu_);
    intake_.close({});
  }
  fail_pending(error);
  for (auto& w : workers_) {
    for (task& t : w->in_flight) t.state->fail(error);
    w->in_flight.clear();
  }
}

bool pool_core::serve_once(std::optional<clock::duration> most) {
  dispatch();
  if (finished_shutting_down()) return false;
  fds_.clear();
  fds_.push_back({wake_fd_, POLLIN, 0});
  for (const auto& w : workers_) {
    fds_.push_back({w->socket_closed ? -1 : w->socket, POLLIN, 0});
    fds_.push_back({w->pidfd, POLLIN, 0});
  }
  const clock::time_point now = clock::now();
  std::optional<clock::duration> wait = most;
  if (const auto timer = next_timer(now)) {
    const clock::duration due = std::max(*timer - now, clock::duration::zero());
    wait = wait ? std::min(*wait, due) : due;
  }
  timespec ts{};
  if (wait) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(*wait).count();
    ts = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  }
  if (::ppoll(fds_.data(), fds_.size(), wait ? &ts : nullptr, nullptr) < 0 && errno != EINTR)
    throw error(std::string("ferry: the pool's poll failed: ") + std::strerror(errno));
  if (fds_[0].revents != 0) {
    std::uint64_t count;
    [[maybe_unused]] const ssize_t n = ::read(wake_fd_, &count, sizeof count);
  }
  const std::size_t n = workers_.size();  // workers started below are not in fds_
  for (std::size_t i = 0; i < n; ++i) {
    worker& w = *workers_[i];
    if (fds_[1 + 2 * i].revents != 0) on_readable(w);
    if (fds_[2 + 2 * i].revents != 0) on_exit(w);
  }
  const std::size_t before = workers_.size();
  std::erase_if(workers_, [](const auto& w) { return w->pidfd < 0; });
  if (workers_.size() != before) publish_pids();
  enforce_timers(clock::now());
  return true;
}

}  // namespace ferry::detail
