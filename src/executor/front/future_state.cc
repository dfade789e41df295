// Copyright ferry authors.
#include <executor/internal/future_state.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "executor/core/fork_generation.h"
#include "executor/core/user_callback.h"
#include "executor/front/continuation_thread.h"
#include "executor/front/wait_helper.h"
#include <executor/errors.h>
#include "internal/mutex.h"

namespace ferry::detail {

namespace {

// How long a wait yields before it blocks. A small task's result often
// arrives within tens of microseconds (docs/performance.md), about what
// waking a blocked thread on another CPU costs on a small virtual machine;
// a longer wait pays this, then the wake-up.
constexpr std::chrono::microseconds spin_before_blocking{50};

enum class phase { pending, running, finished };

class shared_state final : public future_state {
 public:
  mutable mutex mu;
  mutable std::condition_variable cv;
  phase now ABSL_GUARDED_BY(mu) = phase::pending;
  bool was_started ABSL_GUARDED_BY(mu) = false;  // start() succeeded once
  std::shared_ptr<const message_body> result ABSL_GUARDED_BY(mu);
  std::exception_ptr error ABSL_GUARDED_BY(mu);
  std::shared_ptr<const void> local ABSL_GUARDED_BY(mu);
  std::vector<std::function<void()>> callbacks ABSL_GUARDED_BY(mu);
  std::shared_ptr<stop_target> stopper ABSL_GUARDED_BY(mu);
  std::uint64_t stop_id ABSL_GUARDED_BY(mu) = 0;
  std::vector<std::weak_ptr<future_state>> sources ABSL_GUARDED_BY(mu);  // derive_from's
  needs need ABSL_GUARDED_BY(mu) = needs::all;
  const std::uint64_t generation = fork_generation();  // of the process whose pool finishes it
};

// How many pool passes this thread is in (nested: a callback of one pool
// polling another's future).
thread_local int pool_passes = 0;

shared_state& data(future_state& s) { return static_cast<shared_state&>(s); }
const shared_state& data(const future_state& s) { return static_cast<const shared_state&>(s); }

// Marks s finished; returns its callbacks, which the caller runs once it has
// let go of the lock: they may take other locks, or this one again through
// the future.
std::vector<std::function<void()>> complete(shared_state& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  s.now = phase::finished;
  s.cv.notify_all();
  return std::move(s.callbacks);
}

bool finished(const shared_state& s) {
  mutex_lock lock(s.mu);
  return s.now == phase::finished;
}

// The pool that finishes s, if it is a task of a pool made in this process
// (a forked child must not touch its parent's workers).
std::shared_ptr<stop_target> pool_of(const shared_state& s) {
  if (s.generation != fork_generation()) return nullptr;
  mutex_lock lock(s.mu);
  return s.now == phase::finished ? nullptr : s.stopper;
}

// Tells s's pool that a thread is about to wait for s without polling.
void announce_wait(const shared_state& s) {
  if (std::shared_ptr<stop_target> pool = pool_of(s)) pool->announce_wait();
}

[[noreturn]] void throw_wait_in_own_pass(const char* call) {
  throw error(std::string("ferry: ") + call +
              " waited for a task on the thread that runs its pool's loop (or for a future made from such "
              "tasks): a callback given to on_done, or a pool_observer, runs there, and the task cannot finish "
              "until it returns, so the wait would never end. Chain the work with then(), whose function runs "
              "on ferry's continuation thread, or wait outside the callback");
}

// Whether a wait for s could never end here: see future_state::finishes_here.
// Never outside a pool's pass, where it costs a thread-local read. `depth`
// bounds the walk through derived states (a long chain of then()).
bool finishes_here(const shared_state& s, int depth) {
  if (pool_passes == 0) return false;
  std::shared_ptr<stop_target> pool;
  std::vector<std::weak_ptr<future_state>> sources;
  future_state::needs need = future_state::needs::all;
  {
    mutex_lock lock(s.mu);
    if (s.now == phase::finished || s.generation != fork_generation()) return false;
    pool = s.stopper;
    sources = s.sources;
    need = s.need;
  }
  if (pool) return pool->finishes_here();
  if (sources.empty() || depth > 256) return false;
  bool any = false;
  bool all = true;
  for (const auto& w : sources) {
    const std::shared_ptr<future_state> source = w.lock();
    const bool here = source != nullptr && finishes_here(static_cast<const shared_state&>(*source), depth + 1);
    any = any || here;
    all = all && here;
  }
  return need == future_state::needs::all ? any : all;
}

// Polls s's pool and yields until s is finished or the spin window or
// deadline passes; whether it finished. If not, the pool is told that the
// thread now blocks. Throws where the thread runs the pass that is to
// finish s, unless the deadline has passed (wait_for(0s) asks, it does not
// wait).
bool spin_until(const future_state& s, std::chrono::steady_clock::time_point deadline) {
  const auto until = std::min(deadline, std::chrono::steady_clock::now() + spin_before_blocking);
  std::shared_ptr<stop_target> pool = pool_of(data(s));
  if (until < deadline && finishes_here(data(s), 0))
    throw_wait_in_own_pass("a future's get(), wait() or wait_for()");
  for (;;) {
    if (finished(data(s))) return true;
    if (pool) {
      pool->help_wait();
      if (finished(data(s))) return true;
    }
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::yield();
  }
  if (pool) pool->announce_wait();
  return false;
}

}  // namespace

void drop_on_done_exception(std::exception_ptr e) noexcept { report_dropped_exception(user_callback::on_done, e); }

std::shared_ptr<future_state> make_future_state() { return std::make_shared<shared_state>(); }

void throw_no_future_state(const char* call) {
  throw error(std::string("ferry: ") + call +
              " on a future without a task or value (default-constructed or moved from); only valid() may be "
              "called on it: use a future returned by submit, map_ordered, then, when_all or when_any");
}

std::shared_ptr<const void> void_value() {
  static const auto value = std::make_shared<const char>('\0');
  return value;
}

bool future_state::start() {
  shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  if (s.now != phase::pending) return false;
  s.now = phase::running;
  s.was_started = true;
  return true;
}

bool future_state::started() const {
  const shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  return s.was_started;
}

bool future_state::cancel() {
  shared_state& s = data(*this);
  // Asked without the lock: the target may cancel states of its own.
  const std::shared_ptr<stop_target> target = pool_of(s);
  std::exception_ptr why = target ? target->cancel_error() : nullptr;
  mutex_lock lock(s.mu);
  if (s.now != phase::pending) return false;
  s.error = why ? std::move(why) : std::make_exception_ptr(cancelled_error());
  const auto callbacks = complete(s);
  lock.unlock();
  for (const auto& cb : callbacks) cb();
  return true;
}

stop_target::~stop_target() = default;

bool future_state::request_stop(std::chrono::milliseconds grace) {
  shared_state& s = data(*this);
  std::shared_ptr<stop_target> target;
  std::uint64_t id = 0;
  {
    mutex_lock lock(s.mu);
    if (s.now == phase::finished) return false;
    target = s.stopper;
    id = s.stop_id;
  }
  // The target first: a front that retries (retries.cc) is pending while
  // its attempt runs, and stops the attempt; a pool finds a pending task
  // cancelled below and leaves it.
  if (target) target->request_stop(id, std::max(grace, std::chrono::milliseconds(0)));
  return cancel() || target != nullptr;
}

void future_state::set_stop_target(std::shared_ptr<stop_target> target, std::uint64_t id) {
  shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  s.stopper = std::move(target);
  s.stop_id = id;
}

// No lock: no other thread has the state yet, and a lock per task on the
// submit path cost more than the rest of this call.
void future_state::bind_stop_target(std::shared_ptr<stop_target> target,
                                    std::uint64_t id) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  shared_state& s = data(*this);
  s.stopper = std::move(target);
  s.stop_id = id;
}

void future_state::finish(std::shared_ptr<const message_body> result) {
  shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  if (s.now == phase::finished) return;
  s.result = std::move(result);
  const auto callbacks = complete(s);
  lock.unlock();
  for (const auto& cb : callbacks) cb();
}

void future_state::finish_local(std::shared_ptr<const void> value) {
  shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  if (s.now == phase::finished) return;
  s.local = std::move(value);
  const auto callbacks = complete(s);
  lock.unlock();
  for (const auto& cb : callbacks) cb();
}

void future_state::fail(std::exception_ptr error) {
  shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  if (s.now == phase::finished) return;
  s.error = std::move(error);
  const auto callbacks = complete(s);
  lock.unlock();
  for (const auto& cb : callbacks) cb();
}

namespace {

thread_local wait_helper* this_thread_helper = nullptr;

}  // namespace

void set_thread_wait_helper(wait_helper* helper) noexcept { this_thread_helper = helper; }
wait_helper* thread_wait_helper() noexcept { return this_thread_helper; }

namespace {

// On the continuation thread: runs continuations until s is finished or the
// deadline passes; whether it finished.
bool help_until(const future_state& s, std::chrono::steady_clock::time_point deadline) {
  constexpr std::chrono::milliseconds nap{1};  // when none is queued: a pool may finish s
  while (!s.ready()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    if (!run_one_continuation())
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(nap, deadline - now));
  }
  return true;
}

}  // namespace

namespace {
// Nothing in a process forked from the one whose pool finishes `s` ever
// will: waiting there would never end.
void check_not_forked(const future_state& s) {
  if (data(s).generation != fork_generation() && !finished(data(s))) throw_used_after_fork("a future of a pool");
}
}  // namespace

void future_state::wait() const { (void)wait_until(std::chrono::steady_clock::time_point::max()); }

bool future_state::wait_until(std::chrono::steady_clock::time_point deadline) const {
  check_not_forked(*this);
  if (wait_helper* h = this_thread_helper; h != nullptr && !ready()) {
    announce_wait(data(*this));
    return h->help_until([this] { return ready(); }, deadline);
  }
  if (on_continuation_thread()) {
    announce_wait(data(*this));
    return help_until(*this, deadline);
  }
  if (spin_until(*this, deadline)) return true;
  const shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  while (s.now != phase::finished) {
    if (deadline == std::chrono::steady_clock::time_point::max())
      s.cv.wait(lock.native());  // wait(): no deadline to compute a timeout from
    else if (s.cv.wait_until(lock.native(), deadline) == std::cv_status::timeout)
      return s.now == phase::finished;
  }
  return true;
}

bool future_state::finishes_here() const { return detail::finishes_here(data(*this), 0); }

void future_state::derive_from(const std::shared_ptr<future_state>& source, needs need) {
  shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  s.sources.push_back(source);
  s.need = need;
}

void enter_pool_pass() noexcept { ++pool_passes; }
void leave_pool_pass() noexcept { --pool_passes; }

bool future_state::ready() const {
  // The state's lock once, and once more after polling the pool.
  const shared_state& s = data(*this);
  std::shared_ptr<stop_target> pool;
  {
    mutex_lock lock(s.mu);
    if (s.now == phase::finished) return true;
    if (s.generation == fork_generation()) pool = s.stopper;
  }
  if (pool == nullptr) return false;
  pool->help_wait();
  return finished(s);
}

void future_state::on_done(std::function<void()> cb) {
  check_not_forked(*this);  // then(), wait_any, when_any: cb would never run
  shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  if (s.now != phase::finished) {
    s.callbacks.push_back(std::move(cb));
    lock.unlock();
    announce_wait(s);  // nothing may poll for it: its pool's manager watches it
    return;
  }
  lock.unlock();
  cb();
}

std::exception_ptr future_state::error() const {
  const shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  return s.error;
}

std::shared_ptr<const message_body> future_state::result() const {
  const shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  return s.result;
}

std::shared_ptr<const void> future_state::local_value() const {
  const shared_state& s = data(*this);
  mutex_lock lock(s.mu);
  return s.local;
}

namespace {

class index_queue final : public finish_queue {
 public:
  mutex mu;
  std::condition_variable cv;
  std::deque<std::size_t> finished ABSL_GUARDED_BY(mu);
  std::vector<std::weak_ptr<future_state>> watched ABSL_GUARDED_BY(mu);
};

index_queue& data(finish_queue& q) { return static_cast<index_queue&>(q); }

// Throws where none of q's states has finished and each finishes here:
// the wait would never end. Only inside a pool's pass.
void check_can_wait(index_queue& q, std::chrono::steady_clock::time_point deadline) {
  if (pool_passes == 0) return;
  std::vector<std::weak_ptr<future_state>> watched;
  {
    mutex_lock lock(q.mu);
    if (!q.finished.empty()) return;
    watched = q.watched;
  }
  if (watched.empty() || std::chrono::steady_clock::now() >= deadline) return;
  for (const auto& w : watched) {
    const std::shared_ptr<future_state> s = w.lock();
    if (s == nullptr || !s->finishes_here()) return;
  }
  throw_wait_in_own_pass("wait_any, wait_all_or_first_exception or as_completed");
}

}  // namespace

std::shared_ptr<finish_queue> make_finish_queue() { return std::make_shared<index_queue>(); }

std::vector<std::size_t> first_of_each_state(const std::vector<const future_state*>& states) {
  std::vector<std::size_t> first;
  first.reserve(states.size());
  std::unordered_set<const future_state*> seen;
  for (std::size_t i = 0; i < states.size(); ++i)
    if (states[i] == nullptr || seen.insert(states[i]).second) first.push_back(i);
  return first;
}

void finish_queue::watch(const std::shared_ptr<future_state>& s) {
  index_queue& q = data(*this);
  mutex_lock lock(q.mu);
  q.watched.push_back(s);
}

void finish_queue::push(std::size_t index) {
  index_queue& q = data(*this);
  mutex_lock lock(q.mu);
  q.finished.push_back(index);
  q.cv.notify_all();
}

std::size_t finish_queue::pop() {
  index_queue& q = data(*this);
  check_can_wait(q, std::chrono::steady_clock::time_point::max());
  if (wait_helper* h = this_thread_helper)
    h->help_until([&q] {
      mutex_lock lock(q.mu);
      return !q.finished.empty();
    }, std::chrono::steady_clock::time_point::max());
  mutex_lock lock(q.mu);
  while (q.finished.empty()) q.cv.wait(lock.native());
  const std::size_t index = q.finished.front();
  q.finished.pop_front();
  return index;
}

std::optional<std::size_t> finish_queue::pop_until(std::chrono::steady_clock::time_point deadline) {
  index_queue& q = data(*this);
  check_can_wait(q, deadline);
  if (wait_helper* h = this_thread_helper)
    h->help_until([&q] {
      mutex_lock lock(q.mu);
      return !q.finished.empty();
    }, deadline);
  mutex_lock lock(q.mu);
  while (q.finished.empty())
    if (q.cv.wait_until(lock.native(), deadline) == std::cv_status::timeout && q.finished.empty())
      return std::nullopt;
  const std::size_t index = q.finished.front();
  q.finished.pop_front();
  return index;
}

}  // namespace ferry::detail
