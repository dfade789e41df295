// Copyright ferry authors. Internal: the bodies of the MPI messages that are
// not executor messages (mpi_channel.h lists the kinds; docs/api/mpi.md the
// layouts), each in ferry's archive encoding.
#ifndef FERRY_SRC_MPI_MPI_MESSAGES_H_
#define FERRY_SRC_MPI_MPI_MESSAGES_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <executor/events.h>
#include <executor/internal/submit.h>
#include "executor/core/policy_snapshot.h"
#include <executor/pool_options.h>

namespace ferry::detail::mpi {

// How often an agent says it is alive when rank 0 takes it for lost after
// `agent_timeout` (mpi_pool_options) of silence: every second, or four
// times per timeout when that is shorter, so that an idle agent is never
// taken for lost.
inline constexpr std::chrono::milliseconds longest_heartbeat{1000};
constexpr std::chrono::milliseconds heartbeat_for(std::chrono::milliseconds agent_timeout) {
  return std::min(longest_heartbeat, agent_timeout / 4);
}

// config: what an agent's local pool needs, and the module policy of rank 0
// for its workers.
struct agent_config {
  pool_options local;       // but its initializer, which travels encoded:
  std::string initializer;  // protocol::encode_initializer's bytes
  policy_snapshot policy;
  // Rank 0 has an observer: the agent sends it its workers' events.
  bool relay_worker_events = false;
  // Rank 0 ships modules (mpi_pool_options::ship_modules): the agent makes
  // a directory for them; otherwise it makes none.
  bool ship_modules = false;
  // How often the agent sends a heartbeat (heartbeat_for); more than 0.
  std::chrono::milliseconds heartbeat = longest_heartbeat;
};
std::string encode_config(const agent_config& config);
// Throws ferry::format_error.
agent_config decode_config(std::string_view body);

// hello: the agent's host and its local pool's workers (0 when the pool
// could not start).
struct hello {
  std::string host;
  std::uint64_t workers = 0;
};
std::string encode_hello(const hello& h);
hello decode_hello(std::string_view body);

// failure: a task failed as a whole on an agent (its worker died, ran out of
// time, could not start ...): the exception `error` as protocol.h's
// exception record, the one codec of errors crossing processes; decoding
// rebuilds it with the same type, its message naming `where`. Throws
// ferry::format_error (or ferry::error for an unknown kind) on bad bytes.
std::string encode_failure(std::exception_ptr error);
std::exception_ptr decode_failure(std::string_view body, const std::string& where);

// tasks, results: several small bodies in one message, each with its id
// and the kind it would have had alone (task, result or failure): u64 id,
// u8 kind, u64 length and the bytes, repeated.
struct batch_entry {
  std::uint64_t id;
  std::uint8_t kind;
  std::string_view body;  // into the batch's bytes
};
void append_to_batch(std::string& batch, std::uint64_t id, std::uint8_t kind, std::string_view body);
// Throws ferry::format_error for a truncated batch.
std::vector<batch_entry> decode_batch(std::string_view batch);
// Bodies up to this size are sent in batches.
inline constexpr std::size_t batch_body_limit = 16 * 1024;

// task_with_settings: what rank 0 knows of a task that its host needs,
// before the task's body (task_settings, executor/internal/submit.h): its
// own timeout (enforced there), its priority (among the tasks queued
// there), the actor it belongs to (its part and id, and a make's restarts:
// the host's pool binds the actor to one of its workers) and its name
// (shown in its workers' output prefixes with rank 0's number for it, the
// message's id). Throws ferry::format_error for an unknown actor part too.
// The bytes that go before the task's body (a piece of their own when the
// body is large: mpi::channel::send with a head).
std::string settings_prefix(const task_settings& settings);
struct settled_body {
  task_settings settings;  // its name a view into the message's bytes
  std::string_view body;   // too
};
// Throws ferry::format_error for settings cut short.
settled_body split_settings(std::string_view bytes);

// worker_events: what an agent's local pool told of its workers, for rank
// 0's observer (relay_worker_events): each its kind, pid and why.
struct worker_news {
  worker_event::kind what;
  std::int32_t pid;
  std::string why;
};
void append_worker_event(std::string& batch, const worker_event& e);
// Throws ferry::format_error for a body cut short or a kind it does not know.
std::vector<worker_news> decode_worker_events(std::string_view body);

// stop: whether running tasks are killed.
std::string encode_stop(bool kill_running);
bool decode_stop(std::string_view body);

// stop_task: the grace of future::cancel(grace), i64 milliseconds. Throws
// ferry::format_error for a body of another size.
std::string encode_stop_task(std::chrono::milliseconds grace);
std::chrono::milliseconds decode_stop_task(std::string_view body);

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_MPI_MESSAGES_H_
