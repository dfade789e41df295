// Copyright ferry authors.
#include "executor/worker/task_server.h"

#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <thread>

#include "executor/core/admission.h"
#include <executor/cpu_count.h>
#include <executor/errors.h>
#include "executor/pool/process_linux.h"
#include "executor/wire/protocol.h"
#include "executor/wire/task_exception.h"
#include "executor/worker/kept_heap.h"
#include "executor/worker/run_task.h"

namespace ferry::detail {

// What ferry::this_task::pool() hands a task: its worker's task server,
// on the thread that runs it.
class nested_queue final : public task_queue {
 public:
  explicit nested_queue(task_server& server) : server_(&server), owner_(std::this_thread::get_id()) {}
  void detach() { server_ = nullptr; }

  std::shared_ptr<future_state> submit_task(const task_writer& task, std::uint32_t count) override {
    if (server_ == nullptr)
      throw pool_shutdown_error("ferry: this_task::pool() was used after its worker stopped serving");
    if (std::this_thread::get_id() != owner_)
      throw error("ferry: this_task::pool() was used from a thread other than the one running the task; "
                  "submit nested tasks, and wait for them, on the task's own thread");
    pool_options workers;
    workers.max_message_size = max_message_size_;
    auto admitted = admit(task, count, workers);
    if (auto* failed = std::get_if<std::shared_ptr<future_state>>(&admitted)) return *failed;
    return server_->submit(task.settings(), std::get<protocol::encoded_task>(admitted).body);
  }
  void shutdown(shutdown_options) override {}
  bool is_shutdown() const override { return server_ == nullptr; }
  unsigned task_retries() const override { return 0; }
  std::size_t max_workers() const override { return cpu_count(); }
  pool_observer* observer() const override { return nullptr; }

  std::size_t max_message_size_ = SIZE_MAX;

 private:
  task_server* server_;
  const std::thread::id owner_;
};

namespace {

thread_local task_server* this_thread_server = nullptr;
thread_local bool this_thread_runs_task = false;

// The next message, polled for within the spin budget first: nullopt at a
// clean end of stream. A heap that may hold much free memory gives it back
// if none comes within kept_heap::idle_after.
std::optional<message> next_message(connection& pool, spin_policy& spin, kept_heap* heap) {
  const spin_policy::clock::time_point start = spin_policy::clock::now();
  std::optional<message> m;
  if (const spin_policy::clock::duration budget = spin.budget(); budget > budget.zero()) {
    const spin_policy::clock::time_point until = start + budget;
    for (;;) {
      if ((m = pool.next())) break;
      if (pool.fill() == message_reader::fill_result::end) return std::nullopt;
      if (spin_policy::clock::now() >= until) break;
      ::sched_yield();
    }
  }
  // A message already read (it came in one read with the one before) is
  // not new input on the socket: poll would wait out idle_after for it.
  if (!m && heap != nullptr && heap->may_hold_much() && !(m = pool.next()) &&
      !pool.wait_for_input(kept_heap::idle_after))
    heap->give_back();
  if (!m) m = pool.read_blocking();
  spin.waited(spin_policy::clock::now() - start);
  return m;
}

// A result that cannot be sent, as the task's failure (serialization_error
// saving the result): its buffers are dropped.
std::string unsendable_result(fd_list& passed, std::string why) {
  passed.clear();
  return protocol::encode_whole_failure({protocol::exception_kind::serialization, "ferry::error",
                                         "ferry: the task's result " + why,
                                         serialization_error::phase::saving_result});
}

// Runs one task message into its result's body, the buffers it passes in
// `passed`. `max_body`: the largest body the pool reads
// (pool_options::max_message_size).
std::string run_one(const message& m, fd_list& passed, std::size_t max_body) {
  const bool pass_buffers = (m.header.flags & protocol::flag_pass_buffers) != 0;
  std::string result = run_task(m.body->view(), m.body->attachments(), pass_buffers ? &passed : nullptr);
  if (passed.size() > protocol::max_attachments)
    result = unsendable_result(passed, "passes more than " + std::to_string(protocol::max_attachments) +
                                           " ferry::shared_buffer values; return fewer, or one larger buffer");
  // The pool refuses a longer message as a protocol error and kills the
  // worker that sent it: the task fails here instead, saying why, and the
  // worker goes on.
  if (result.size() > max_body)
    result = unsendable_result(passed, "of " + std::to_string(result.size()) +
                                           " bytes exceeds pool_options::max_message_size (" +
                                           std::to_string(max_body) +
                                           " bytes); nothing of it was sent: raise max_message_size, or "
                                           "return large data in a ferry::shared_buffer");
  // What the task printed goes out before its result, so that the pool
  // reads it as the task's.
  std::fflush(stdout);
  std::fflush(stderr);
  return result;
}

// How long a wait sleeps at most before it looks again at what it waits
// for: a future finished by another thread (a continuation's) wakes no one
// here.
constexpr std::chrono::milliseconds wait_slice{10};

}  // namespace

task_server::task_server(connection& pool, settings s, task_stop& stop)
    : pool_(pool), settings_(s), stop_(stop), watch_(s.memory_limit), waiting_(s.spin) {}

task_server::~task_server() {
  if (queue_) queue_->detach();
}

std::shared_ptr<task_queue> task_server::queue() {
  if (!queue_) {
    queue_ = std::make_shared<nested_queue>(*this);
    queue_->max_message_size_ = pool_.current().max_body;
  }
  return queue_;
}

std::shared_ptr<task_queue> this_thread_nested_queue() {
  if (this_thread_server == nullptr || !this_thread_runs_task) return nullptr;
  return this_thread_server->queue();
}

int task_server::serve() {
  set_thread_task_stop(&stop_);
  this_thread_server = this;
  struct unset {
    ~unset() {
      set_thread_task_stop(nullptr);
      this_thread_server = nullptr;
    }
  } unset_at_return;
  try {
    pool_.send({protocol::kind::ready});
    for (;;) {
      std::optional<message> m = next_message(pool_, waiting_, settings_.heap);
      if (!m || handle(*m) == next::exit || retiring_) return protocol::served_status;
    }
  } catch (const connection_lost&) {
    // The pool closed its end: it is gone, or it gave this worker up (a
    // thread of the pool's own process, start_method::in_process, whose
    // task ran past its timeout or was stopped finds out when it answers).
    // As when a read finds the end: nobody is there to tell.
    return protocol::served_status;
  } catch (const protocol_error& e) {
    // A socket that is no longer one was closed in this process: by a
    // task (closing every descriptor above 2, say), which the pool says.
    for (const int fd : {pool_.fd(), pool_.out_fd()}) {
      int type = 0;
      socklen_t size = sizeof(type);
      if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0 && (errno == EBADF || errno == ENOTSOCK))
        return protocol::connection_closed_status;
    }
    std::fprintf(stderr, "ferry worker %d: %s\n", static_cast<int>(::getpid()), e.what());
    return protocol::protocol_error_status;
  } catch (const authentication_failure& e) {
    // Not a task to fail: the pool's side of the socket is not the pool.
    std::fprintf(stderr, "ferry worker %d: %s\n", static_cast<int>(::getpid()), e.what());
    return protocol::authentication_status;
  }
}

task_server::next task_server::handle(message& m) {
  switch (m.header.type) {
    case protocol::kind::exit:
      if (running_.empty()) return next::exit;
      exit_asked_ = true;  // after the tasks that wait
      return next::go_on;
    case protocol::kind::task:
      run(m);
      return exit_asked_ && running_.empty() ? next::exit : next::go_on;
    case protocol::kind::nested_result: {
      const auto it = nested_.find(m.header.id);
      if (it == nested_.end()) throw protocol_error("a nested task's result that this worker did not submit");
      const std::shared_ptr<future_state> state = std::move(it->second);
      nested_.erase(it);
      state->finish(std::move(m.body));
      return next::go_on;
    }
    default:
      throw protocol_error("a message of an unexpected kind from the pool");
  }
}

void task_server::run(message& m) {
  const std::uint64_t id = m.header.id;
  const bool on_top = !running_.empty();
  // The pool knows a task started when the one before it ended; one
  // started by a task that waits, it is told.
  if (on_top) pool_.send({protocol::kind::began, id});
  running_.push_back(id);
  if (!on_top) watch_.task_started();
  stop_.begin(id);
  wait_helper* const outer_helper = thread_wait_helper();
  const bool outer_runs = this_thread_runs_task;
  set_thread_wait_helper(this);
  this_thread_runs_task = true;
  fd_list passed;
  const std::string result = run_one(m, passed, pool_.current().max_body);
  this_thread_runs_task = outer_runs;
  set_thread_wait_helper(outer_helper);
  stop_.end();
  running_.pop_back();
  if (!on_top) watch_.task_finished();
  m.body.reset();  // unmap the arguments before the result is written
  if (fatal_) std::rethrow_exception(fatal_);  // the connection broke while the task waited
  retiring_ = !on_top && settings_.memory_limit != 0 && resident_bytes() > settings_.memory_limit;
  pool_.send({protocol::kind::result, id, result, retiring_ ? protocol::flag_retiring : std::uint8_t{0},
              passed.view()});
}

bool task_server::help_until(const std::function<bool()>& done, std::chrono::steady_clock::time_point deadline) {
  if (done()) return true;
  if (fatal_) std::rethrow_exception(fatal_);
  bool told = false;
  try {
    for (;;) {
      while (std::optional<message> m = pool_.next()) {
        handle(*m);
        if (done()) break;
      }
      if (done()) break;
      if (!told && !running_.empty()) {
        pool_.send({protocol::kind::waiting, running_.back()});
        told = true;
      }
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) break;
      const auto slice = std::min<std::chrono::steady_clock::duration>(deadline - now, wait_slice);
      if (pool_.wait_for_input(std::chrono::ceil<std::chrono::milliseconds>(slice)) &&
          pool_.fill() == message_reader::fill_result::end)
        throw protocol_error("the pool closed the connection while a task waited for a nested task");
    }
    if (told) pool_.send({protocol::kind::resumed, running_.back()});
  } catch (const protocol_error&) {
    fatal_ = std::current_exception();
    throw;
  } catch (const authentication_failure&) {
    fatal_ = std::current_exception();
    throw;
  }
  return done();
}

std::shared_ptr<future_state> task_server::submit(const task_settings& settings, std::string_view task_body) {
  if (fatal_) std::rethrow_exception(fatal_);
  const std::uint64_t id = next_nested_++;
  auto state = make_future_state();
  try {
    pool_.send({protocol::kind::submit, id, protocol::encode_submit(settings, task_body)});
  } catch (const protocol_error&) {
    fatal_ = std::current_exception();
    throw;
  }
  nested_.emplace(id, state);
  return state;
}

}  // namespace ferry::detail
