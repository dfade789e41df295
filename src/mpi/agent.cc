// Copyright ferry authors.
#include "mpi/agent.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "executor/wire/message_io.h"
#include "executor/core/local_pool.h"
#include "mpi/cpu_affinity_linux.h"
#include "mpi/mpi_channel.h"
#include "mpi/mpi_job.h"
#include "mpi/mpi_messages.h"
#include "mpi/module_shipping.h"
#include "mpi/modules_dir_linux.h"
#include "serialize/code/module_policy_internal.h"
#include <serialize/error.h>
#include <serialize/module_policy.h>

namespace ferry::detail::mpi {
namespace {

// How long an agent whose tasks run waits for its workers before it looks
// at MPI again.
constexpr std::chrono::microseconds running_poll{100};

// Variables of the MPI launcher that a worker must not inherit: a child
// that finds them and initializes MPI fails.
const char* const launcher_variables[] = {"OMPI_*", "PMIX_*", "PMI_*", "HYDRA_*"};

// Waits for stop, answering it.
int wait_for_stop(channel& ch) {
  idle_backoff backoff(std::chrono::milliseconds(5));
  for (;;) {
    if (auto m = ch.poll()) {
      if (m->type == kind::stop) break;
      backoff.reset();
    } else {
      ch.progress();
      backoff.wait();
    }
  }
  ch.send(0, kind::stop, 0, {});
  ch.flush();
  return 0;
}

// The observer of an agent's local pool when rank 0 has one: keeps what it
// is told of the workers, for the agent to send (kind::worker_events).
// Told only on the agent's loop thread, which drives the pool.
class worker_event_relay final : public pool_observer {
 public:
  void on_worker(const worker_event& e) override {
    append_worker_event(batch_, e);
    ++count_;
  }
  // Sends what was told since the last call, if anything.
  void send(channel& ch) {
    if (count_ == 0) return;
    ch.send(0, kind::worker_events, count_, std::move(batch_));
    batch_.clear();
    count_ = 0;
  }

 private:
  std::string batch_;
  std::uint64_t count_ = 0;
};

// Where the modules rank 0 sends are kept, searched by the workers: none
// unless it said it ships some, or when none can be made (the tasks then
// fail as they would without shipping, naming the module).
std::unique_ptr<modules_dir> open_modules_dir(const agent_config& config, const std::string& host) {
  if (!config.ship_modules) return nullptr;
  try {
    auto dir = std::make_unique<modules_dir>();
    add_module_search_path(dir->path());
    return dir;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ferry: the MPI agent on %s cannot keep shipped modules: %s\n", host.c_str(), e.what());
    return nullptr;
  }
}

// An agent serving its pool: each pass takes what came from rank 0, waits
// if nothing did, and sends what finished. One thread: MPI's, which also
// drives the local pool, so that a worker's answer reaches MPI with no
// thread in between.
class agent_loop {
 public:
  agent_loop(channel& ch, job& j, std::shared_ptr<local_pool> pool, std::shared_ptr<worker_event_relay> relay,
             std::unique_ptr<modules_dir> shipped, std::chrono::milliseconds heartbeat)
      : ch_(ch),
        host_(j.host),
        bell_(j.bell_of(j.rank)),
        root_bell_(j.bell_of(0)),
        pool_(std::move(pool)),
        relay_(std::move(relay)),
        shipped_(std::move(shipped)),
        heartbeat_(heartbeat) {}

  // Serves until rank 0 says stop, then shuts the pool down and answers.
  int run() {
    while (!stopping_) {
      heartbeat();
      bool did = take_messages();
      wait(did);
      did = send_answers() || did;
      sending_ = !ch_.progress();
      if (did) backoff_.reset();
    }
    pool_->shutdown({.wait = true, .cancel_pending = kill_running_, .kill_running = kill_running_});
    pool_.reset();
    // Nothing of this agent is left on disk once rank 0 hears it stopped,
    // and the next pool's workers are not sent to look there.
    if (shipped_) forget_module_search_path(shipped_->path());
    shipped_.reset();
    if (relay_) relay_->send(ch_);  // the workers' exits
    ch_.send(0, kind::stop, 0, {});  // the last message of this rank
    ch_.flush();
    return 0;
  }

 private:
  void heartbeat() {
    if (std::chrono::steady_clock::now() < next_heartbeat_) return;
    ch_.send(0, kind::heartbeat, 0, {});
    next_heartbeat_ = std::chrono::steady_clock::now() + heartbeat_;
  }

  // Every message that has come: tasks to the pool, modules to their
  // directory, a stop. Whether any came.
  bool take_messages() {
    bool any = false;
    while (auto m = ch_.poll()) {
      any = true;
      switch (m->type) {
        case kind::stop:
          kill_running_ = decode_stop(m->body);
          stopping_ = true;
          return true;
        case kind::module: store(m->body); break;
        case kind::task: submit(m->id, m->body); break;
        case kind::task_with_settings: submit_settled(m->id, m->body); break;
        case kind::stop_task:
          if (auto it = running_.find(m->id); it != running_.end()) it->second->request_stop(decode_stop_task(m->body));
          break;
        case kind::tasks:
          for (const batch_entry& e : decode_batch(m->body)) {
            if (e.kind == static_cast<std::uint8_t>(kind::task_with_settings)) submit_settled(e.id, e.body);
            else submit(e.id, e.body);
          }
          break;
        default: break;
      }
    }
    return any;
  }

  void store(std::string_view body) {
    try {
      if (!shipped_) throw error("rank 0 sent a module, but did not say it would ship modules");
      store_module(body, shipped_->path());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ferry: the MPI agent on %s: %s\n", host_.c_str(), e.what());
    }
  }

  void submit(std::uint64_t id, std::string_view body, const task_settings& settings = {}) {
    std::shared_ptr<future_state> state =
        pool_->submit_body(std::string(body), settings, id);
    running_.emplace(id, state);
    state->on_done([this, id] { done_.push_back(id); });
  }
  void submit_settled(std::uint64_t id, std::string_view bytes) {
    const settled_body t = split_settings(bytes);
    submit(id, t.body, t.settings);
  }

  // Where this agent waits when nothing came from MPI: it yields for a
  // while after its last activity (a short task's answer comes within
  // it), unless yields were found slow (idle_backoff). Then, while its
  // tasks run, in the local pool's poll, which a worker's answer ends at
  // once (a task from rank 0 meanwhile waits at most running_poll); idle,
  // on its doorbell, which rank 0 rings when it sends here from this
  // host, or for the back-off's time.
  void wait(bool did) {
    if (did || sending_) {
      pool_->turn(std::chrono::microseconds(0));
    } else if (const std::chrono::microseconds pause = backoff_.next(); pause.count() == 0) {
      pool_->turn(std::chrono::microseconds(0));
      backoff_.yield();
    } else if (!running_.empty()) {
      pool_->turn(running_poll);
    } else if (bell_ == nullptr) {
      pool_->turn(pause);
    } else {
      pool_->turn(std::chrono::microseconds(0));
      bell_->sleep_unless([this] { return ch_.pending(); }, pause);
    }
  }

  // What finished since the last pass, and the workers' events. Small
  // results (and failures) leave together, large ones alone, as the local
  // pool received them. Whether anything finished.
  bool send_answers() {
    finished_.clear();
    finished_.swap(done_);
    std::string batch;
    std::size_t batched = 0;
    for (std::uint64_t id : finished_) {
      auto it = running_.find(id);
      if (it == running_.end()) continue;
      const std::shared_ptr<future_state> state = std::move(it->second);
      running_.erase(it);
      if (state->error() != nullptr) {
        append_to_batch(batch, id, static_cast<std::uint8_t>(kind::failure), encode_failure(state->error()));
        ++batched;
      } else if (std::shared_ptr<const message_body> result = state->result();
                 result->view().size() > batch_body_limit) {
        ch_.send_held(0, kind::result, id, std::move(result));
      } else {
        append_to_batch(batch, id, static_cast<std::uint8_t>(kind::result), result->view());
        ++batched;
      }
    }
    if (relay_) relay_->send(ch_);
    if (batched > 0) ch_.send(0, kind::results, batched, std::move(batch));
    if (!finished_.empty() && root_bell_ != nullptr) root_bell_->ring();
    return !finished_.empty();
  }

  channel& ch_;
  const std::string host_;
  doorbell* const bell_;       // this agent's, rung by rank 0; null when rank 0 is on another host
  doorbell* const root_bell_;  // rank 0's, rung when answers leave
  std::shared_ptr<local_pool> pool_;
  const std::shared_ptr<worker_event_relay> relay_;  // null when rank 0 has no observer
  std::unique_ptr<modules_dir> shipped_;  // null without ship_modules
  std::unordered_map<std::uint64_t, std::shared_ptr<future_state>> running_;
  std::vector<std::uint64_t> done_;  // ids whose state finished, in order (all on this thread)
  std::vector<std::uint64_t> finished_;
  idle_backoff backoff_;
  const std::chrono::milliseconds heartbeat_;  // how often rank 0 hears from an idle agent
  std::chrono::steady_clock::time_point next_heartbeat_ = std::chrono::steady_clock::now() + heartbeat_;
  bool sending_ = false;  // pieces of a large message still going out
  bool stopping_ = false;
  bool kill_running_ = false;
};

// Sets the agent up from rank 0's configuration (its module policy, its
// modules directory, its pool over every CPU the host gives it), says
// hello, and serves until that pool's stop.
void serve(channel& ch, agent_config config) {
  job& j = this_job();
  // Rank 0's policy, applied here so that the local pool hands it to its
  // workers.
  apply_module_policy(config.policy, policy_host::other);
  std::unique_ptr<modules_dir> shipped = open_modules_dir(config, j.host);
  for (const char* v : launcher_variables) config.local.unset_env.emplace_back(v);
  use_every_allowed_cpu();  // the host's pool is this agent's, whatever mpirun bound
  if (config.local.max_workers == 0) config.local.max_workers = cpus_given_by_batch_system();
  std::shared_ptr<worker_event_relay> relay;
  if (config.relay_worker_events) config.local.observer = relay = std::make_shared<worker_event_relay>();
  std::shared_ptr<local_pool> pool;
  try {
    pool = local_pool::create(std::move(config.local), std::move(config.initializer), j.host);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ferry: the MPI agent on %s could not start its pool: %s\n", j.host.c_str(), e.what());
    ch.send(0, kind::hello, 0, encode_hello({j.host, 0}));
    wait_for_stop(ch);
    return;
  }
  ch.send(0, kind::hello, 0, encode_hello({j.host, pool->max_workers()}));
  pool->start_workers();  // while rank 0 hears from the other agents: the first task finds them up
  agent_loop(ch, j, std::move(pool), std::move(relay), std::move(shipped), config.heartbeat).run();
}

}  // namespace

int run_agent() {
  job& j = this_job();
  try {
    channel ch(j.comm);
    if (!j.is_agent()) return wait_for_stop(ch);  // rank 0 knows; it sends nothing else here
    // Between pools: a config starts the next, a stop ends the job.
    idle_backoff backoff;
    for (;;) {
      std::optional<message> m = ch.poll();
      if (!m) {
        backoff.wait();
        continue;
      }
      backoff.reset();
      if (m->type == kind::stop) {
        ch.send(0, kind::stop, 0, {});
        ch.flush();
        return 0;
      }
      if (m->type == kind::config) serve(ch, decode_config(m->body));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ferry: MPI rank %d on %s: %s\n", j.rank, j.host.c_str(), e.what());
    return 1;
  }
}

}  // namespace ferry::detail::mpi
