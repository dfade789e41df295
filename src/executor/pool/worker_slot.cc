// Copyright ferry authors.
#include "executor/pool/crash_report.h"
#include "executor/pool/worker_slot.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

#include "executor/wire/protocol.h"

namespace ferry::detail {

worker_slot::worker_slot(pid_t pid, int socket, int pidfd, int crash_pipe, std::string_view key,
                         std::size_t max_body, int out, int err)
    : pid_(pid),
      socket_(socket),
      pidfd_(pidfd),
      crash_pipe_(crash_pipe),
      out_(out),
      err_(err),
      auth_(key, channel_auth::side::pool),
      reader_(max_body) {
  reader_.authenticate_with(&auth_);
}

worker_slot::~worker_slot() {
  if (socket_ >= 0) ::close(socket_);
  if (pidfd_ >= 0) ::close(pidfd_);
  if (crash_pipe_ >= 0) ::close(crash_pipe_);
  if (out_ >= 0) ::close(out_);
  if (err_ >= 0) ::close(err_);
}

void worker_slot::read_output(int stream, bool to_the_end, const std::function<void(int, std::string_view)>& sink) {
  int& fd = stream == 1 ? out_ : err_;
  if (fd < 0) return;
  output_lines& lines = stream == 1 ? out_lines_ : err_lines_;
  const auto out = [&](std::string_view line) { sink(stream, line); };
  const bool open = lines.drain(fd, out);
  if (!open || to_the_end) {
    // Closed, or its worker is gone: its last line, even unterminated, is
    // whole now; what a process it left behind writes later is not its.
    lines.finish(out);
    ::close(fd);
    fd = -1;
  }
}

void worker_slot::close_socket() {
  if (socket_ < 0) return;
  ::close(socket_);
  socket_ = -1;
  closed_at_ = clock::now();
}

void worker_slot::send_hello(const std::string& body, std::size_t shared_memory_threshold) {
  write_message(socket_, nullptr, protocol::kind::hello, 0, body, shared_memory_threshold);
}

std::optional<pool_task> worker_slot::send_task(pool_task t, std::size_t shared_memory_threshold,
                                                std::uint8_t flags, bool reuse_memory) {
  if (!t.goes_alone(shared_memory_threshold)) {
    append_message(output_, &auth_, protocol::kind::task, t.id, t.body, flags);
    output_ends_.push_back(output_.size());
  } else {
    try {
      write_message(socket_, &auth_, protocol::kind::task, t.id, t.body, shared_memory_threshold, flags,
                    t.attachments.view(), reuse_memory ? &reuse_ : nullptr);
    } catch (const protocol_error&) {
      // The write failed before its last byte (a message with shared memory
      // goes in one sendmsg, all or nothing), and a worker runs only a whole
      // message that passed authentication: this task provably never ran
      // here, and goes back to be sent to another worker. The channel is
      // broken: closed, the worker's exit is what its tasks in flight
      // report, or if it lives on, the exit_grace deadline kills it.
      close_socket();
      phase_ = phase::retiring;
      return t;
    }
  }
  if (in_flight_.empty()) {
    since_ = clock::now();
    t.running_since = since_;
  }
  phase_ = phase::busy;
  ++tasks_sent_;
  in_flight_.push_back(std::move(t));
  if (output_.empty()) in_flight_.front().forget_message();  // sent; running needs neither
  return std::nullopt;
}

std::vector<pool_task> worker_slot::flush() {
  std::vector<pool_task> unsent;
  if (output_.empty()) return unsent;
  const std::size_t written = socket_ < 0 ? 0 : write_gathered(socket_, output_);
  // The messages that left whole may run; the rest provably never will (a
  // worker runs only a whole message that passed authentication).
  const auto whole = static_cast<std::size_t>(
      std::upper_bound(output_ends_.begin(), output_ends_.end(), written) - output_ends_.begin());
  const std::size_t lost = output_ends_.size() - whole;
  output_.clear();
  output_ends_.clear();
  if (lost != 0) {
    std::vector<pool_task> back(lost);
    for (std::size_t i = lost; i-- > 0;) {
      back[i] = std::move(in_flight_.back());
      in_flight_.pop_back();
    }
    tasks_sent_ -= lost;
    for (pool_task& t : back) unsent.push_back(std::move(t));
    if (socket_ >= 0) close_socket();
    phase_ = phase::retiring;
  }
  // A task that runs at once no longer needs its body; one queued behind
  // another keeps it until it starts, to be sent elsewhere if the worker
  // dies first.
  if (!in_flight_.empty()) in_flight_.front().forget_message();
  return unsent;
}

std::size_t worker_slot::pipeline_depth(clock::time_point now) const {
  constexpr std::size_t least = 2, most = 64;
  constexpr clock::duration batch_time = std::chrono::milliseconds(1);
  if (typical_run_ <= clock::duration::zero()) return least;
  clock::duration run = typical_run_;
  if (!in_flight_.empty()) run = std::max(run, now - in_flight_.front().running_since);
  return std::clamp<std::size_t>(static_cast<std::size_t>(batch_time / std::max(run, clock::duration(1))),
                                 least, most);
}

std::size_t worker_slot::queued_bytes() const {
  std::size_t n = 0;
  for (std::size_t i = 1; i < in_flight_.size(); ++i) n += in_flight_[i].body.size();
  return n;
}

void worker_slot::retire() {
  phase_ = phase::retiring;
  try {
    write_message(socket_, &auth_, protocol::kind::exit, 0, {});
  } catch (const protocol_error&) {
    ::kill(pid_, SIGKILL);
  }
}

void worker_slot::kill(std::string why) {
  if (failure_.empty()) failure_ = std::move(why);
  ::kill(pid_, SIGKILL);
  phase_ = phase::retiring;
}

void worker_slot::kill_for_timeout() {
  timed_out_ = true;
  ::kill(pid_, SIGKILL);
}

void worker_slot::kill_for_shutdown() {
  stopped_by_shutdown_ = true;
  ::kill(pid_, SIGKILL);
}

void worker_slot::became_ready(clock::time_point now) {
  if (phase_ != phase::starting) return;
  phase_ = phase::idle;
  since_ = now;
}

pool_task worker_slot::finish_front(clock::time_point now) {
  pool_task done = std::move(in_flight_.front());
  in_flight_.pop_front();
  // A moving average over about eight tasks: one slow task shrinks the
  // pipeline at once, a run of short ones deepens it.
  const clock::duration ran = now - done.running_since;
  typical_run_ = typical_run_ <= clock::duration::zero() ? ran : std::max(ran, (typical_run_ * 7 + ran) / 8);
  if (!in_flight_.empty()) {  // started
    in_flight_.front().body = std::string();
    in_flight_.front().running_since = now;
  }
  ++tasks_done_;
  since_ = now;  // the next task starts now, or idleness does
  if (phase_ == phase::busy && in_flight_.empty()) phase_ = phase::idle;
  return done;
}

void worker_slot::read(const message_handler& on_message) {
  if (socket_ < 0) return;
  try {
    for (;;) {
      const auto got = reader_.fill(socket_, true);
      while (std::optional<message> m = reader_.next()) on_message(*this, *m);
      if (got == message_reader::fill_result::end) {
        // Normally the process is exiting; the exit_grace deadline kills it
        // if not.
        close_socket();
        return;
      }
      if (got == message_reader::fill_result::nothing) return;
    }
  } catch (const protocol_error& e) {
    close_socket();
    kill(std::string("was killed by the pool after a protocol error: ") + e.what());
  } catch (const authentication_failure& e) {
    // Whatever wrote that message may have written others: nothing more is
    // read from this worker.
    close_socket();
    kill(std::string("was killed by the pool as compromised: ") + e.what());
  }
}

exit_facts worker_slot::reap(const message_handler& on_message) {
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  read(on_message);  // a result written just before exiting
  close_socket();
  ::close(pidfd_);
  pidfd_ = -1;
  reaped_ = true;
  exit_facts facts{pid_,          status,   phase_ == phase::starting, timed_out_, stopped_by_shutdown_, failure_,
                   start_failure_, in_flight_.empty() ? std::nullopt : in_flight_.front().timeout};
  // What it wrote as it died; a worker that exited or was killed wrote nothing.
  if (WIFSIGNALED(status) && !in_flight_.empty()) facts.crash = parse_crash_record(read_crash_pipe(crash_pipe_));
  return facts;
}

}  // namespace ferry::detail
