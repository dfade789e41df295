// Copyright ferry authors. Internal: ferry's messages between the ranks of
// an MPI job (docs/api/mpi.md, "Messages"). Rank 0 runs the pool; every
// other rank is a node agent or waits.
//
// A message is a 24-byte header (u32 kind, u32 reserved, u64 id, u64 body
// length) sent with header_tag. A body of at most inline_body_limit bytes
// follows the header in the same MPI message; a larger one follows in
// pieces of at most max_piece bytes sent with piece_tag, by the same rank
// and in order, so that no MPI call counts more than an int holds (OpenMPI
// 4.1 has no large-count calls).
//
// Thread-safety: none; one thread at a time per process calls MPI (on rank
// 0, whichever thread takes the pool's turn: mpi_core.h; the agent's loop
// elsewhere).
#ifndef FERRY_SRC_MPI_MPI_CHANNEL_H_
#define FERRY_SRC_MPI_MPI_CHANNEL_H_

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::detail {
class message_body;  // ../executor/wire/message_io.h
}

namespace ferry::detail::mpi {

enum class kind : std::uint32_t {
  config = 1,   // rank 0 -> agents: their pool options (mpi_messages.h)
  hello = 2,    // agent -> rank 0: host name and workers (0: its pool could not start)
  task = 3,     // rank 0 -> agent: a task message body (protocol.h), id = task id
  result = 4,   // agent -> rank 0: a task's result body, one too large to batch
  failure = 5,  // an entry of results: why the task failed as a whole
  stop = 6,     // rank 0 -> all: finish and exit; body: u8 kill_running
  module = 7,     // rank 0 -> agent: a module's file (module_shipping.h)
  heartbeat = 8,  // agent -> rank 0, every agent_config::heartbeat; empty
  tasks = 9,      // rank 0 -> agent: several small tasks (mpi_messages.h, batches)
  results = 10,   // agent -> rank 0: small results and failures, one or more
  task_with_settings = 11,  // rank 0 -> agent: a task's timeout and name, then its body (mpi_messages.h)
  worker_events = 12,  // agent -> rank 0: its workers started, recycled, exited (mpi_messages.h)
  stop_task = 13,      // rank 0 -> agent: stop running task id (future::cancel(grace)); body: i64 grace ms
};  // a new kind goes last: poll() refuses what lies beyond it


struct message {
  kind type;
  std::uint64_t id;
  std::string body;
  int source;
};

inline constexpr int header_tag = 7301;
inline constexpr std::size_t inline_body_limit = 16 * 1024;
inline constexpr int piece_tag = 7302;
// Below 2 GiB, the most bytes one int-counted MPI call may carry.
inline constexpr std::size_t default_max_piece = std::size_t{1} << 30;

class channel {
 public:
  // Messages between the ranks of `comm`.
  explicit channel(MPI_Comm comm, std::size_t max_piece = default_max_piece);
  ~channel();  // waits for queued sends
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;

  // Queues a message for `rank` without blocking; its bytes are kept until
  // MPI has sent them.
  void send(int rank, kind type, std::uint64_t id, std::string body);
  // The same for a body that is `head` then `body`, as the receiver sees
  // it: a large one leaves as pieces of each, never joined here (a task's
  // settings before its body, task_with_settings).
  void send(int rank, kind type, std::uint64_t id, std::string head, std::string body);
  // The same for a body that is not copied but held until sent (a result
  // as the local pool received it).
  void send_held(int rank, kind type, std::uint64_t id, std::shared_ptr<const message_body> body);
  // The next message that has arrived, or nullopt. Receives its pieces
  // before returning (they follow the header). Throws ferry::error for a
  // header of another size or an unknown kind.
  std::optional<message> poll();
  // Whether a message has arrived that poll() would return; receives nothing.
  bool pending();
  // Advances queued sends; true when none is left.
  bool progress();
  // Blocks until every queued send is done.
  void flush();
  // Gives up on queued sends to a rank that will never receive them: their
  // bytes are kept (MPI may still read them) but nothing waits for them.
  void abandon();

 private:
  struct outgoing {
    std::vector<std::uint64_t> header;  // kind and reserved, id, length
    std::string head;  // owned bytes before the body, when large
    std::string body;  // owned bytes: the body, or the header and a small head and body
    std::shared_ptr<const message_body> held;  // or a held body
    std::vector<MPI_Request> requests;
  };
  // Sends `head` then `bytes`, which `o` keeps alive, as a message of their
  // own pieces, or copied behind the header when small.
  void start(outgoing& o, int rank, kind type, std::uint64_t id, std::string_view head, std::string_view bytes);
  MPI_Comm comm_;
  std::size_t max_piece_;
  std::deque<outgoing> out_;
};

// How a loop with nothing to do waits between polls: it only yields for a
// short window after its last activity, where an answer is likely (a round
// trip's result), then sleeps, longer each time up to `max_sleep`, so that
// an idle rank does not burn a core. reset() after doing something.
//
// A yield that took longer than slow_yield ran another process's time
// slice: after two within slow_yield_pair, for contended_period the loop
// sleeps at once, on its doorbell (doorbell_linux.h) where it has one,
// instead of yielding into the next slice.
class idle_backoff {
 public:
  explicit idle_backoff(std::chrono::microseconds max_sleep = std::chrono::microseconds(1000));
  // How long to wait now: zero (only yield) within the window, else the
  // next, longer, sleep; for a loop that waits in its own call.
  std::chrono::microseconds next();
  // Yields, and notes whether the CPU was taken meanwhile.
  void yield();
  void wait();  // yield() or sleeps next()
  void reset();

 private:
  static constexpr std::chrono::microseconds spin_window{200};
  // The scheduler's slices are milliseconds; the pool's own processes take
  // tens of microseconds between two polls, which a lower bound (50 us was
  // tried) mistakes for contention on a quiet host.
  static constexpr std::chrono::microseconds slow_yield{500};
  static constexpr std::chrono::milliseconds contended_period{100};
  static constexpr std::chrono::milliseconds slow_yield_pair{20};
  std::chrono::microseconds max_sleep_;
  std::chrono::microseconds sleep_{0};
  std::chrono::steady_clock::time_point last_activity_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point contended_until_{};
  std::chrono::steady_clock::time_point last_slow_yield_{};
};

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_MPI_CHANNEL_H_
