// Copyright ferry authors.
#include "mpi/mpi_core.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "executor/wire/message_io.h"
#include "executor/wire/protocol.h"
#include "executor/core/admission.h"
#include "executor/core/loop_scope.h"
#include "executor/core/option_checks.h"
#include <executor/errors.h>
#include <executor/internal/deadline.h>
#include <executor/internal/result_items.h>
#include "executor/core/task_events.h"
#include "mpi/mpi_job.h"
#include "mpi/mpi_messages.h"
#include "mpi/module_shipping.h"
#include <serialize/module_policy.h>

namespace ferry::detail {
namespace {

constexpr std::chrono::seconds hello_timeout{60};
// A window's upper bound per worker (mpi_pool_options::work_ahead), and how
// often an agent's rate is sampled.
constexpr std::size_t max_in_flight_per_worker = 64;
constexpr std::chrono::milliseconds sample_period{1};
// How long the manager naps while a thread polls for its answers (help),
// and how recent that thread's last poll must be. It wakes from each nap
// for a turn of its own: the answer of a task nobody waits for is read
// within about this long.
constexpr std::chrono::microseconds helped_nap{1000};

// A thread taking a turn of the pool's loop holds its turn_mu_: a future it
// polls (a callback's) takes no other turn.
using turn_scope = loop_scope<mpi_core>;

// What an mpi_pool's options cannot do, and a job that cannot have one now:
// each a ferry::error saying what to do instead.
void check_can_make_pool(const mpi::job& j, const mpi_pool_options& options) {
  if (!j.initialized)
    throw error("ferry: mpi_pool needs ferry::serve_if_mpi_agent(argc, argv) first in main");
  if (j.rank != 0)
    throw error("ferry: an mpi_pool is made on rank 0 only; other ranks serve in serve_if_mpi_agent");
  if (options.local.start == start_method::fork)
    throw error("ferry: mpi_pool's agents cannot fork workers (a forked child inherits the MPI "
                "process's state); use start_method::spawn or start_method::plugin");
  if (options.local.start == start_method::in_process)
    throw error("ferry: mpi_pool's agents run tasks in worker processes on their hosts; "
                "start_method::in_process debugs a task in the calling process: use a process_pool");
  if (options.agent_timeout < std::chrono::seconds(1))
    throw error("ferry: mpi_pool_options::agent_timeout of " + std::to_string(options.agent_timeout.count()) +
                " ms: it must be at least 1 s (an agent's one thread may be busy that long starting its "
                "workers or taking a large message, and would be taken for lost)");
  check_pool_options(options.local, "mpi_pool_options::local");
  if (options.local.on_output)
    throw error("ferry: mpi_pool's local.on_output would be called where the workers are, on other "
                "hosts; use local.worker_output = ferry::output_mode::prefix, which writes their lines, "
                "named by host, to the agents' output that mpirun forwards");
}

}  // namespace

mpi_core::mpi_core(mpi_pool_options options) : options_(std::move(options)) {
  mpi::job& j = mpi::this_job();
  check_can_make_pool(j, options_);
  mpi::begin_pool(j);
  try {
    mutex_lock turn(turn_mu_);
    find_agents(j);
    channel_ = std::make_unique<mpi::channel>(j.comm, options_.max_piece);
    bell_ = j.bell_of(0);
    configure_agents(j);
    for (const agent& a : agents_) hosts_.push_back(a.host);
  } catch (...) {
    abandon_start(j);
    throw;
  }
  stops_->set_helper(this);
  j.shut_running_pool.set(this, [this] { shutdown({.cancel_pending = true}); });
  manager_.start([this] {
    run();
    observation_.loop_ended();
  });
}

void mpi_core::find_agents(mpi::job& j) {
  if (j.spawned) {
    // The first pool's agents serve the later ones.
    if (options_.spawn_agents != 0 && options_.spawn_agents != j.agents.size())
      throw error("ferry: this MPI job's " + std::to_string(j.agents.size()) + " agents were spawned by an " +
                  "earlier mpi_pool and serve every later one: set spawn_agents to " +
                  std::to_string(j.agents.size()) + " or 0");
  } else if (options_.spawn_agents > 0) {
    mpi::spawn_agents(options_.spawn_agents);
  }
  if (j.agents.empty())
    throw error("ferry: the MPI job has no node agent: start it with more than one rank "
                "(mpirun -n 2 or more), one more per host than the hosts that only run rank 0");
}

void mpi_core::abandon_start(mpi::job& j) {
  if (!configured_) {
    mpi::end_pool(j);
    return;
  }
  // The agents that said hello wait for the stop of a pool they serve (or
  // could not start); the others are taken for lost.
  try {
    mpi::stop_ranks(hellos_, false);
  } catch (...) {
  }
  mpi::end_pool(j, mpi::ranks_except(j.agents, hellos_));
}

void mpi_core::configure_agents(mpi::job& j) {
  mpi::agent_config config{options_.local, protocol::encode_initializer(options_.local.initializer),
                           snapshot_module_policy(), options_.local.observer != nullptr, options_.ship_modules,
                           mpi::heartbeat_for(options_.agent_timeout)};
  config.local.initializer = {};
  const std::string body = mpi::encode_config(config);
  for (int r : j.agents) channel_->send(r, mpi::kind::config, 0, body);
  configured_ = true;

  const auto deadline = std::chrono::steady_clock::now() + hello_timeout;
  mpi::idle_backoff backoff;
  const auto expected = static_cast<int>(j.agents.size());
  for (int answered = 0; answered < expected;) {
    std::optional<mpi::message> m = channel_->poll();
    if (!m) {
      channel_->progress();
      if (std::chrono::steady_clock::now() > deadline)
        throw error("ferry: " + std::to_string(expected - answered) + " of the job's " +
                    std::to_string(expected) + " node agents did not answer within 60 s");
      backoff.wait();
      continue;
    }
    if (m->type != mpi::kind::hello) continue;
    ++answered;
    hellos_.push_back(m->source);
    add_agent(j, m->source, mpi::decode_hello(m->body));
  }
  if (agents_.empty())
    throw error("ferry: no node agent of the MPI job could start its pool; each said why on its "
                "standard error");
  std::sort(agents_.begin(), agents_.end(), [](const agent& a, const agent& b) { return a.rank < b.rank; });
  rooms_ = mpi::agent_rooms(agents_.size());
  agent_of_rank_.assign(static_cast<std::size_t>(agents_.back().rank) + 1, agents_.size());
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    rooms_.set_limits(i, agents_[i].floor, agents_[i].floor);
    agent_of_rank_[static_cast<std::size_t>(agents_[i].rank)] = i;
  }
}

void mpi_core::add_agent(mpi::job& j, int rank, const mpi::hello& h) {
  if (h.workers == 0) return;  // its pool could not start: it said why
  const std::size_t per_worker = std::max<std::size_t>(options_.tasks_in_flight_per_worker, 1);
  agent a;
  a.rank = rank;
  a.host = h.host;
  a.floor = h.workers * per_worker;
  a.most = std::max(a.floor, h.workers * max_in_flight_per_worker);
  a.sampled = a.last_heard = std::chrono::steady_clock::now();
  a.bell = j.bell_of(a.rank);
  agents_.push_back(std::move(a));
  max_workers_ += h.workers;
}

mpi_core::~mpi_core() {
  shutdown({});
  stops_->close();
  mpi::this_job().shut_running_pool.clear(this);
}

std::shared_ptr<future_state> mpi_core::submit_task(const task_writer& task, std::uint32_t count) {
  auto encoded = admit(task, count, options_.local, options_.ship_modules);
  if (auto* failed = std::get_if<std::shared_ptr<future_state>>(&encoded)) return *failed;
  auto state = make_future_state();
  auto& e = std::get<protocol::encoded_task>(encoded);
  const task_settings settings = task.settings();
  const std::size_t before = intake_.submit(observer(), count, settings.name, [&](std::uint64_t id) {
    state->bind_stop_target(stops_, id);
    news_.fetch_add(1);  // under intake_.mu, as wake_manager's
    return mpi_core::task{
        {id, std::move(e.body), state, settings.timeout, std::string(settings.name), count,
         queue_priority(settings),
         settings.actor},
        std::move(e.modules)};
  }).second;
  // The fast path (see the header): nothing was queued or in flight, so
  // the task leaves from this thread, the manager left asleep.
  if (before == 0 && help_turn(true)) {
    // A manager asleep until a heartbeat is due would leave the answer of
    // a task nobody waits for unread that long: it naps from now on.
    if (manager_idle_.load()) cv_.notify_one();
    return state;
  }
  cv_.notify_one();
  if (bell_ != nullptr) bell_->ring();
  return state;
}

void mpi_core::wake_manager() {
  {
    mutex_lock lock(intake_.mu);
    news_.fetch_add(1);
  }
  cv_.notify_one();
  if (bell_ != nullptr) bell_->ring();
}

bool mpi_core::help_turn(bool only_when_idle) {
  if (turn_scope::in_any() || !turn_mu_.try_lock()) return false;
  bool left_nothing = false;
  try {
    turn_scope scope(this, stops_.get());
    // A shutdown since the last turn leaves this one more: harmless, and
    // it sets closing_ for the next.
    if (!closing_ && (!only_when_idle || rooms_.in_flight() == 0)) {
      last_help_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
      left_nothing = take_turn().queue.empty;
    }
  } catch (...) {
    turn_mu_.unlock();
    throw;
  }
  turn_mu_.unlock();
  return left_nothing;
}

void mpi_core::announce() {
  last_help_.store(0, std::memory_order_relaxed);
  wake_manager();
}

void mpi_core::shutdown(shutdown_options how) {
  close_intake(intake_, how, [this] { wake_manager(); });
  // From a callback a turn runs (on_done, an observer), on a thread that
  // waits or on the manager: the manager finishes the shutdown once the
  // turn is over, and cannot take its turn while this one waits.
  if (how.wait && !turn_scope::in(this)) manager_.join();
}

bool mpi_core::runs_its_loop_here() const { return turn_scope::in(this) || manager_.is_current(); }

bool mpi_core::is_shutdown() const { return intake_.is_closed(); }

std::vector<std::string> mpi_core::hosts() const { return hosts_; }

void mpi_core::on_message(mpi::message m) {
  const auto source = static_cast<std::size_t>(m.source);
  if (source >= agent_of_rank_.size() || agent_of_rank_[source] == agents_.size()) return;
  agent& a = agents_[agent_of_rank_[source]];
  a.last_heard = std::chrono::steady_clock::now();
  if (m.type == mpi::kind::results) {
    for (const mpi::batch_entry& e : mpi::decode_batch(m.body))
      on_answer(a, static_cast<mpi::kind>(e.kind), e.id, std::string(e.body));
  } else if (m.type == mpi::kind::result || m.type == mpi::kind::failure) {
    on_answer(a, m.type, m.id, std::move(m.body));
  } else if (m.type == mpi::kind::worker_events) {
    for (const mpi::worker_news& n : mpi::decode_worker_events(m.body))
      tell_worker(observer(), n.what, n.pid, n.why, a.host);
  }
}

mpi::kind mpi_core::kind_of(const task& t) {
  return t.settings().any() ? mpi::kind::task_with_settings : mpi::kind::task;
}

void mpi_core::on_answer(agent& a, mpi::kind type, std::uint64_t id, std::string body) {
  auto it = a.in_flight.find(id);
  if (it == a.in_flight.end()) return;
  const task_record sent = std::move(it->second);
  a.in_flight.erase(it);
  rooms_.remove(index_of(a));
  ++a.answered;
  const task_facts facts = sent.facts(0, a.host);
  if (type == mpi::kind::result) {
    sent.state->finish(make_message_body(std::move(body)));
    if (observer() != nullptr)
      tell_task(observer(), task_event::kind::finished, facts, items_that_threw(*sent.state, sent.items));
  } else {
    const std::exception_ptr error =
        mpi::decode_failure(body, "on host " + a.host + ", MPI rank " + std::to_string(a.rank));
    sent.state->fail(error);
    if (observer() != nullptr) tell_task(observer(), task_event::kind::failed, facts, 0, what_of(error));
  }
}

void mpi_core::ship_modules(agent& a, const task& t) {
  for (const module_file& m : t.modules) {
    // Every rank runs this same program, so the program is never sent.
    if (m.main_program || !a.shipped.insert(m.build_id).second) continue;
    std::shared_ptr<const message_body>& body = module_messages_[m.build_id];
    try {
      // Read and hashed once, for every agent it goes to.
      if (!body) body = make_message_body(mpi::module_message(m.path, m.build_id));
      channel_->send_held(a.rank, mpi::kind::module, 0, body);
    } catch (const std::exception&) {
      // Not sent: the worker reports the module it cannot find, with the
      // task's error, as without ship_modules.
    }
    // Kept only until every agent still heard from has been sent it.
    if (std::all_of(agents_.begin(), agents_.end(),
                    [&](const agent& other) { return other.lost || other.shipped.contains(m.build_id); }))
      module_messages_.erase(m.build_id);
  }
}

void mpi_core::update_windows(std::chrono::steady_clock::time_point now) {
  if (options_.work_ahead.count() <= 0) return;
  for (agent& a : agents_) {
    if (a.in_flight.empty() && a.answered == 0) {
      a.sampled = now;  // idle time says nothing of the tasks' length
      continue;
    }
    const std::chrono::duration<double> elapsed = now - a.sampled;
    if (elapsed < sample_period) continue;
    const double sample = static_cast<double>(a.answered) / elapsed.count();
    a.rate = a.rate == 0 ? sample : (a.rate + sample) / 2;
    a.answered = 0;
    a.sampled = now;
    const double ahead = a.rate * std::chrono::duration<double>(options_.work_ahead).count();
    rooms_.set_limits(index_of(a), a.floor, std::clamp(static_cast<std::size_t>(ahead), a.floor, a.most));
  }
}

mpi_core::agent* mpi_core::agent_for(const task& t, std::exception_ptr& refused) {
  if (t.actor.what == actor_route::part::call || t.actor.what == actor_route::part::drop) {
    const auto bound = actor_agents_.find(t.actor.id);
    if (bound == actor_agents_.end()) {
      refused = actor_never_made();
      return nullptr;
    }
    agent& a = agents_[bound->second];
    if (a.lost)
      refused = std::make_exception_ptr(
          worker_died_error(0, "held the actor, which was lost with its MPI agent on host " + a.host));
    return a.lost ? nullptr : &a;
  }
  const std::optional<std::size_t> best = rooms_.choose(t.body.size() <= mpi::batch_body_limit);
  if (best && t.actor.what == actor_route::part::make) actor_agents_[t.actor.id] = *best;
  return best ? &agents_[*best] : nullptr;
}

void mpi_core::check_agents() {
  const auto now = std::chrono::steady_clock::now();
  bool any_left = false;
  for (agent& a : agents_) {
    if (!a.lost && now > later_by(a.last_heard, options_.agent_timeout)) {
      a.lost = true;
      rooms_.set_lost(index_of(a));
      const auto silent = std::chrono::duration_cast<std::chrono::milliseconds>(now - a.last_heard);
      const auto lost = std::make_exception_ptr(worker_died_error(
          0, "was lost with its MPI agent on host " + a.host + ", MPI rank " + std::to_string(a.rank) +
                 ", which sent nothing for " + std::to_string(silent.count()) + " ms"));
      fail_sent(a, lost);
    }
    any_left = any_left || !a.lost;
  }
  if (any_left) return;
  intake_.fail_pending(std::make_exception_ptr(
      worker_start_error("ferry: every MPI agent of the pool was lost; nothing can run the task")));
}

void mpi_core::fail_in_flight(std::exception_ptr error) {
  for (agent& a : agents_) fail_sent(a, error);
}

void mpi_core::fail_sent(agent& a, const std::exception_ptr& error) {
  const std::string what = observer() != nullptr ? what_of(error) : std::string();
  for (auto& [id, sent] : a.in_flight) {
    sent.state->fail(error);
    tell_task(observer(), task_event::kind::failed,
              sent.facts(0, a.host),
              0, what);
  }
  rooms_.remove(index_of(a), a.in_flight.size());
  a.in_flight.clear();
}

void mpi_core::wait_for_news(mpi::idle_backoff& backoff, std::uint64_t news_seen, bool idle) {
  const auto news = [&] { return news_.load() != news_seen; };
  const auto since_help = std::chrono::steady_clock::now() -
                          std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(last_help_.load()));
  if (since_help < helped_nap) {
    mutex_lock lock(intake_.mu);
    cv_.wait_for(lock.native(), helped_nap, news);
    backoff.reset();  // a nap is not a sign of contention
    return;
  }
  if (idle) {
    mutex_lock lock(intake_.mu);
    manager_idle_.store(true);
    cv_.wait_for(lock.native(), mpi::heartbeat_for(options_.agent_timeout), news);
    manager_idle_.store(false);
    return;
  }
  const std::chrono::microseconds pause = backoff.next();
  if (pause.count() == 0) {
    backoff.yield();
    return;
  }
  if (bell_ == nullptr) {
    std::this_thread::sleep_for(pause);
    return;
  }
  // The bell's protocol (doorbell_linux.h), with MPI asked under the turn's lock.
  const std::uint32_t armed = bell_->arm();
  bool pending = news();
  if (!pending) {
    mutex_lock turn(turn_mu_);
    pending = channel_->pending();
  }
  if (pending) {
    bell_->disarm();
    return;
  }
  bell_->sleep(armed, pause);
}

// One turn: what may go to an agent is taken from the queue, then sent,
// answers read, and the agents looked at once a sample period.
mpi_core::turn_outcome mpi_core::take_turn() {
  turn_plan plan = take_tasks();
  for (auto& [t, why] : plan.refused) t.state->fail(why);
  send_tasks(plan.to_send);
  send_stop_requests();
  const auto [did_read, sending] = read_answers();
  // Each pass over every agent at most once a sample period, however many
  // messages arrive: their number grows with the agents too.
  if (const auto now = std::chrono::steady_clock::now(); now >= next_look_) {
    check_agents();
    update_windows(now);
    next_look_ = now + sample_period;
  }
  return {.did = did_read || !plan.to_send.empty(), .sending = sending, .queue = plan.queue};
}

// The manager's loop: a turn, then, when it did nothing, a wait without
// the turn's lock, so that a thread that submits or waits may take one.
void mpi_core::run() {
  mpi::idle_backoff backoff;
  for (;;) {
    const std::uint64_t news_seen = news_.load();
    turn_outcome out;
    {
      mutex_lock turn(turn_mu_);
      turn_scope scope(this, stops_.get());
      out = take_turn();
      if (out.queue.finished) {
        stop_agents(out.queue.kill);
        return;
      }
    }
    if (out.did) backoff.reset();
    else if (out.sending) backoff.yield();
    else wait_for_news(backoff, news_seen, out.queue.idle);
  }
}

void mpi_core::send_stop_requests() {
  for (const stop_inbox::request& r : stops_->take()) {
    const auto holder = std::find_if(agents_.begin(), agents_.end(),
                                     [&](const agent& a) { return !a.lost && a.in_flight.contains(r.id); });
    if (holder != agents_.end()) {
      try {
        channel_->send(holder->rank, mpi::kind::stop_task, r.id, mpi::encode_stop_task(r.grace));
        if (holder->bell != nullptr) holder->bell->ring();
      } catch (const std::exception&) {
        // The agent is gone: its tasks fail as its loss is found.
      }
      continue;
    }
    intake_.cancel_pending(r.id);
  }
}

mpi_core::turn_plan mpi_core::take_tasks() {
  turn_plan plan;
  mutex_lock lock(intake_.mu);
  queue_seen& seen = plan.queue;
  seen.kill = intake_.kill_running();
  while (!seen.kill && !intake_.pending.empty()) {
    std::exception_ptr refused;
    agent* best = agent_for(intake_.pending.front(), refused);
    if (best == nullptr && !refused) break;
    task t = std::move(intake_.pending.front());
    intake_.pending.pop_front();
    if (t.actor.what == actor_route::part::drop) actor_agents_.erase(t.actor.id);
    if (refused) {
      plan.refused.emplace_back(std::move(t), std::move(refused));
      continue;
    }
    if (!t.state->start()) continue;  // cancelled meanwhile
    best->in_flight.emplace(
        t.id, task_record{.id = t.id, .state = t.state, .timeout = t.timeout, .name = t.name, .items = t.items,
                          .priority = t.priority, .running_since = std::chrono::steady_clock::now()});
    rooms_.add(index_of(*best));
    plan.to_send.emplace_back(best, std::move(t));
  }
  closing_ = intake_.closed();
  seen.empty = intake_.pending.empty();
  seen.finished = closing_ && (seen.kill || (seen.empty && rooms_.in_flight() == 0));
  // Nothing to wait for from the agents: the manager sleeps until there is
  // work, but wakes each heartbeat interval to take their heartbeats off
  // MPI's queue of unexpected messages, which would otherwise only grow.
  seen.idle = rooms_.in_flight() == 0 && seen.empty && !closing_;
  return plan;
}

void mpi_core::send_tasks(std::vector<std::pair<agent*, task>>& to_send) {
  // Small tasks for one agent leave together, large ones alone.
  std::unordered_map<agent*, std::pair<std::string, std::vector<task*>>> batches;
  for (auto& [a, t] : to_send) {
    tell_task(observer(), task_event::kind::started, {.id = t.id, .items = t.items, .name = t.name, .host = a->host});
    if (options_.ship_modules) ship_modules(*a, t);
    const mpi::kind k = kind_of(t);
    std::string settings =
        k == mpi::kind::task_with_settings ? mpi::settings_prefix(t.settings()) : std::string();
    // A large body leaves as it is, its settings a piece of their own before
    // it; a small one is copied into its batch anyway.
    if (t.body.size() > mpi::batch_body_limit) {
      channel_->send(a->rank, k, t.id, std::move(settings), std::move(t.body));
      if (a->bell != nullptr) a->bell->ring();
      continue;
    }
    t.body.insert(0, settings);
    auto& [bytes, tasks] = batches[a];
    mpi::append_to_batch(bytes, t.id, static_cast<std::uint8_t>(k), t.body);
    tasks.push_back(&t);
  }
  for (auto& [a, batch] : batches) {
    auto& [bytes, tasks] = batch;
    if (tasks.size() == 1)
      channel_->send(a->rank, kind_of(*tasks[0]), tasks[0]->id, std::move(tasks[0]->body));
    else
      channel_->send(a->rank, mpi::kind::tasks, tasks.size(), std::move(bytes));
    if (a->bell != nullptr) a->bell->ring();
  }
}

mpi_core::read_outcome mpi_core::read_answers() {
  read_outcome r;
  try {
    while (std::optional<mpi::message> m = channel_->poll()) {
      r.did = true;
      on_message(std::move(*m));
    }
    r.sending = !channel_->progress();
  } catch (const std::exception& e) {
    fail_in_flight(std::make_exception_ptr(error(std::string("ferry: the MPI pool failed: ") + e.what())));
  }
  return r;
}

void mpi_core::stop_agents(bool kill) {
  if (kill) fail_in_flight(stopped_by_shutdown());
  mpi::job& j = mpi::this_job();
  std::vector<int> lost;
  for (const agent& a : agents_)
    if (a.lost) lost.push_back(a.rank);
  // A send to a lost agent would never complete.
  if (lost.empty()) channel_->flush(); else channel_->abandon();
  // Every agent of the job, those whose pool could not start too, waits
  // for this pool's stop; then for the next pool or the job's end.
  // The agents' workers exit as they stop: told to the observer as before.
  // (The callback runs within this call, turn_mu_ held.)
  mpi::stop_ranks(mpi::ranks_except(j.agents, lost), kill, [this](mpi::message& m) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (m.type == mpi::kind::worker_events) on_message(std::move(m));
  });
  mpi::end_pool(j, lost);
}

}  // namespace ferry::detail
