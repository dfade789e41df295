// Copyright ferry authors.
#include "mpi/mpi_channel.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "executor/wire/message_io.h"
#include <serialize/error.h>
#include <serialize/internal/large_buffers.h>

namespace ferry::detail::mpi {
namespace {

constexpr int header_words = 3;  // u64: kind (low half), id, length

void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw error(std::string("ferry: ") + call + " failed (MPI error " + std::to_string(rc) + ")");
}

}  // namespace

channel::channel(MPI_Comm comm, std::size_t max_piece)
    : comm_(comm), max_piece_(std::clamp<std::size_t>(max_piece, 1, default_max_piece)) {}

channel::~channel() {
  try {
    flush();
  } catch (...) {
  }
}

void channel::send(int rank, kind type, std::uint64_t id, std::string body) {
  send(rank, type, id, std::string(), std::move(body));
}

void channel::send(int rank, kind type, std::uint64_t id, std::string head, std::string body) {
  outgoing& o = out_.emplace_back();
  if (head.size() + body.size() <= inline_body_limit) return start(o, rank, type, id, head, body);
  o.head = std::move(head);
  o.body = std::move(body);
  start(o, rank, type, id, o.head, o.body);
}

void channel::send_held(int rank, kind type, std::uint64_t id, std::shared_ptr<const message_body> body) {
  outgoing& o = out_.emplace_back();
  const std::string_view bytes = body->view();
  if (bytes.size() > inline_body_limit) o.held = std::move(body);
  start(o, rank, type, id, {}, bytes);
}

void channel::start(outgoing& o, int rank, kind type, std::uint64_t id, std::string_view head,
                    std::string_view bytes) {
  o.header = {static_cast<std::uint64_t>(type), id, head.size() + bytes.size()};
  if (head.size() + bytes.size() <= inline_body_limit) {
    // One MPI message: the header, then the body.
    o.body.assign(reinterpret_cast<const char*>(o.header.data()), header_words * 8);
    o.body += head;
    o.body += bytes;
    o.requests.resize(1);
    check(MPI_Isend(o.body.data(), static_cast<int>(o.body.size()), MPI_BYTE, rank, header_tag,
                    comm_, &o.requests[0]),
          "MPI_Isend");
    return;
  }
  o.requests.resize(1);
  check(MPI_Isend(o.header.data(), header_words * 8, MPI_BYTE, rank, header_tag, comm_,
                  &o.requests[0]),
        "MPI_Isend");
  // The receiver takes pieces of any size in order (poll): the head's, then
  // the body's.
  for (const std::string_view part : {head, bytes}) {
    for (std::size_t at = 0; at < part.size(); at += max_piece_) {
      const int n = static_cast<int>(std::min(max_piece_, part.size() - at));
      check(MPI_Isend(part.data() + at, n, MPI_BYTE, rank, piece_tag, comm_, &o.requests.emplace_back()),
            "MPI_Isend");
    }
  }
}

bool channel::pending() {
  int arrived = 0;
  check(MPI_Iprobe(MPI_ANY_SOURCE, header_tag, comm_, &arrived, MPI_STATUS_IGNORE), "MPI_Iprobe");
  return arrived != 0;
}

std::optional<message> channel::poll() {
  int arrived = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, header_tag, comm_, &arrived, &status), "MPI_Iprobe");
  if (!arrived) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  const int source = status.MPI_SOURCE;
  std::string first(static_cast<std::size_t>(std::max(count, 0)), '\0');
  check(MPI_Recv(first.data(), count, MPI_BYTE, source, header_tag, comm_, MPI_STATUS_IGNORE),
        "MPI_Recv");
  const auto from = [&] { return "ferry: MPI rank " + std::to_string(source) + " sent "; };
  if (first.size() < header_words * 8 || first.size() > header_words * 8 + inline_body_limit)
    throw error(from() + "a message header of " + std::to_string(count) + " bytes");
  std::uint64_t header[header_words];
  std::memcpy(header, first.data(), sizeof header);
  if (header[0] < static_cast<std::uint64_t>(kind::config) || header[0] > static_cast<std::uint64_t>(kind::stop_task))
    throw error(from() + "a message of unknown kind " + std::to_string(header[0]));
  message m{static_cast<kind>(header[0]), header[1], {}, source};
  if (first.size() > header_words * 8 || header[2] <= inline_body_limit) {
    if (header[2] != first.size() - header_words * 8)
      throw error(from() + "a message announcing " + std::to_string(header[2]) + " bytes with " +
                  std::to_string(first.size() - header_words * 8));
    m.body = first.substr(header_words * 8);
    return m;
  }
  // Fresh memory for a large body: offered huge pages before its first
  // touch, as the archives do (serialize/internal/large_buffers.h).
  m.body.reserve(header[2]);
  if (header[2] >= large_buffer_bytes) advise_huge_pages(m.body.data(), m.body.capacity());
  m.body.resize(header[2]);
  // The pieces follow from the same rank, of whatever size the sender cut
  // them to; receiving them keeps MPI's progress going for this process's
  // own queued sends meanwhile.
  for (std::size_t at = 0; at < m.body.size();) {
    const int room = static_cast<int>(std::min(default_max_piece, m.body.size() - at));
    MPI_Status piece;
    check(MPI_Recv(m.body.data() + at, room, MPI_BYTE, source, piece_tag, comm_, &piece),
          "MPI_Recv");
    int got = 0;
    MPI_Get_count(&piece, MPI_BYTE, &got);
    if (got <= 0) throw error(from() + "an empty piece of a message");
    at += static_cast<std::size_t>(got);
  }
  return m;
}

bool channel::progress() {
  while (!out_.empty()) {
    outgoing& o = out_.front();
    int done = 0;
    check(MPI_Testall(static_cast<int>(o.requests.size()), o.requests.data(), &done,
                      MPI_STATUSES_IGNORE),
          "MPI_Testall");
    if (!done) return false;
    out_.pop_front();
  }
  return true;
}

void channel::flush() {
  for (outgoing& o : out_)
    MPI_Waitall(static_cast<int>(o.requests.size()), o.requests.data(), MPI_STATUSES_IGNORE);
  out_.clear();
}

void channel::abandon() {
  // Deliberately leaked: the job is about to be aborted.
  new std::deque<outgoing>(std::move(out_));
  out_.clear();
}

idle_backoff::idle_backoff(std::chrono::microseconds max_sleep) : max_sleep_(max_sleep) {}

std::chrono::microseconds idle_backoff::next() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_activity_ < spin_window && now >= contended_until_) return std::chrono::microseconds(0);
  sleep_ = std::min(max_sleep_, sleep_ == std::chrono::microseconds(0) ? std::chrono::microseconds(20) : sleep_ * 2);
  return sleep_;
}

void idle_backoff::yield() {
  const auto before = std::chrono::steady_clock::now();
  std::this_thread::yield();
  const auto after = std::chrono::steady_clock::now();
  if (after - before <= slow_yield) return;
  // Twice in a short while: one slow yield may be the hypervisor's doing,
  // and on a quiet host 100 ms of sleeping where yields pay is most of a
  // job of short round trips.
  if (after - last_slow_yield_ < slow_yield_pair) contended_until_ = after + contended_period;
  last_slow_yield_ = after;
}

void idle_backoff::wait() {
  const std::chrono::microseconds pause = next();
  if (pause.count() == 0)
    yield();
  else
    std::this_thread::sleep_for(pause);
}

void idle_backoff::reset() {
  last_activity_ = std::chrono::steady_clock::now();
  sleep_ = std::chrono::microseconds(0);
}

}  // namespace ferry::detail::mpi
