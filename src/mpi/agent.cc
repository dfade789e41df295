// Copyright ferry authors.
#include "mpi/agent.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "executor/message_io.h"
#include "executor/local_pool.h"
#include "mpi/cpu_affinity_linux.h"
#include "mpi/mpi_channel.h"
#include "mpi/mpi_job.h"
#include "mpi/mpi_messages.h"
#include "mpi/module_shipping.h"
#include "mpi/modules_dir_linux.h"
#include "serialize/error.h"
#include "serialize/module_policy.h"

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

int serve(channel& ch, agent_config config) {
  job& j = this_job();
  // Rank 0's policy, applied here so that the local pool hands it to its
  // workers.
  apply_module_policy(config.policy, policy_host::other);
  // Where the modules rank 0 sends are kept, searched by the workers; none
  // unless it sends some.
  std::optional<modules_dir> shipped;
  if (config.ship_modules) {
    try {
      shipped.emplace();
      add_module_search_path(shipped->path());
    } catch (const std::exception& e) {
      // Its tasks fail as they would without shipping, naming the module.
      std::fprintf(stderr, "ferry: the MPI agent on %s cannot keep shipped modules: %s\n", j.host.c_str(), e.what());
      shipped.reset();
    }
  }
  for (const char* v : launcher_variables) config.local.unset_env.emplace_back(v);
  use_every_allowed_cpu();  // the host's pool is this agent's, whatever mpirun bound
  if (config.local.max_workers == 0) config.local.max_workers = cpus_given_by_batch_system();
  std::shared_ptr<worker_event_relay> relay;
  if (config.relay_worker_events) config.local.observer = relay = std::make_shared<worker_event_relay>();
  std::shared_ptr<local_pool> pool;
  try {
    // Driven from this loop: a worker's answer reaches MPI without a thread
    // in between.
    pool = local_pool::create(std::move(config.local), std::move(config.initializer), j.host);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ferry: the MPI agent on %s could not start its pool: %s\n", j.host.c_str(), e.what());
    ch.send(0, kind::hello, 0, encode_hello({j.host, 0}));
    return wait_for_stop(ch);
  }
  ch.send(0, kind::hello, 0, encode_hello({j.host, pool->max_workers()}));
  pool->start_workers();  // while rank 0 hears from the other agents: the first task finds them up

  std::unordered_map<std::uint64_t, std::shared_ptr<future_state>> running;
  std::vector<std::uint64_t> done;  // ids whose state finished, in order (all on this thread)
  idle_backoff backoff;
  bool kill_running = false;
  auto next_heartbeat = std::chrono::steady_clock::now() + heartbeat_interval;
  const auto submit = [&](std::uint64_t id, std::string_view body, const task_settings& settings = {}) {
    std::shared_ptr<future_state> state =
        pool->submit_body(std::string(body), settings.timeout, {.id = id, .name = settings.name});
    running.emplace(id, state);
    state->on_done([&done, id] { done.push_back(id); });
  };
  std::vector<std::uint64_t> finished;
  doorbell* const bell = j.bell_of(j.rank);
  doorbell* const root_bell = j.bell_of(0);
  bool sending = false;  // pieces of a large message still going out
  for (bool stopping = false; !stopping;) {
    bool did = false;
    if (std::chrono::steady_clock::now() >= next_heartbeat) {
      ch.send(0, kind::heartbeat, 0, {});
      next_heartbeat = std::chrono::steady_clock::now() + heartbeat_interval;
    }
    while (auto m = ch.poll()) {
      did = true;
      if (m->type == kind::stop) {
        kill_running = decode_stop(m->body);
        stopping = true;
        break;
      }
      if (m->type == kind::module) {
        try {
          if (!shipped) throw error("rank 0 sent a module, but did not say it would ship modules");
          store_module(m->body, shipped->path());
        } catch (const std::exception& e) {
          std::fprintf(stderr, "ferry: the MPI agent on %s: %s\n", j.host.c_str(), e.what());
        }
        continue;
      }
      if (m->type == kind::task) {
        submit(m->id, m->body);
      } else if (m->type == kind::task_with_settings) {
        const settled_body t = split_settings(m->body);
        submit(m->id, t.body, t.settings);
      } else if (m->type == kind::tasks) {
        for (const batch_entry& e : decode_batch(m->body)) {
          if (e.kind == static_cast<std::uint8_t>(kind::task_with_settings)) {
            const settled_body t = split_settings(e.body);
            submit(e.id, t.body, t.settings);
          } else {
            submit(e.id, e.body);
          }
        }
      }
    }
    // Where this agent waits when nothing came from MPI: it yields for a
    // while after its last activity (a short task's answer comes within
    // it), unless yields were found slow (idle_backoff). Then, while its
    // tasks run, in the local pool's poll, which a worker's answer ends at
    // once (a task from rank 0 meanwhile waits at most running_poll); idle,
    // on its doorbell, which rank 0 rings when it sends here from this
    // host, or for the back-off's time.
    if (did || sending) {
      pool->turn(std::chrono::microseconds(0));
    } else if (const std::chrono::microseconds pause = backoff.next(); pause.count() == 0) {
      pool->turn(std::chrono::microseconds(0));
      backoff.yield();
    } else if (!running.empty()) {
      pool->turn(running_poll);
    } else if (bell == nullptr) {
      pool->turn(pause);
    } else {
      pool->turn(std::chrono::microseconds(0));
      const std::uint32_t armed = bell->arm();
      if (ch.pending()) bell->disarm(); else bell->sleep(armed, pause);
    }
    finished.clear();
    finished.swap(done);
    // Small results (and failures) leave together, large ones alone, as the
    // local pool received them.
    std::string batch;
    std::size_t batched = 0;
    for (std::uint64_t id : finished) {
      did = true;
      auto it = running.find(id);
      if (it == running.end()) continue;
      const std::shared_ptr<future_state> state = std::move(it->second);
      running.erase(it);
      if (state->error() != nullptr) {
        append_to_batch(batch, id, static_cast<std::uint8_t>(kind::failure), encode_failure(state->error()));
        ++batched;
      } else if (std::shared_ptr<const message_body> result = state->result();
                 result->view().size() > batch_body_limit) {
        ch.send_held(0, kind::result, id, std::move(result));
      } else {
        append_to_batch(batch, id, static_cast<std::uint8_t>(kind::result), result->view());
        ++batched;
      }
    }
    if (relay) relay->send(ch);
    if (batched > 0) ch.send(0, kind::results, batched, std::move(batch));
    sending = !ch.progress();
    if (!finished.empty() && root_bell != nullptr) root_bell->ring();
    if (did) backoff.reset();
  }
  pool->shutdown({.wait = true, .cancel_pending = kill_running, .kill_running = kill_running});
  pool.reset();
  shipped.reset();  // nothing of this agent is left on disk once rank 0 hears it stopped
  if (relay) relay->send(ch);  // the workers' exits
  ch.send(0, kind::stop, 0, {});  // the last message of this rank
  ch.flush();
  return 0;
}

}  // namespace

int run_agent() {
  job& j = this_job();
  try {
    channel ch(j.comm);
    if (!j.is_agent()) return wait_for_stop(ch);  // rank 0 knows; it sends nothing else here
    idle_backoff backoff;
    for (;;) {
      std::optional<message> m = ch.poll();
      if (!m) {
        backoff.wait();
        continue;
      }
      if (m->type == kind::stop) {  // rank 0 ended without a pool
        ch.send(0, kind::stop, 0, {});
        ch.flush();
        return 0;
      }
      if (m->type != kind::config) continue;
      return serve(ch, decode_config(m->body));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ferry: MPI rank %d on %s: %s\n", j.rank, j.host.c_str(), e.what());
    return 1;
  }
}

}  // namespace ferry::detail::mpi
