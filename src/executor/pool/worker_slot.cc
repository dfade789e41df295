// Copyright ferry authors.
#include "executor/pool/crash_report.h"
#include "executor/pool/worker_slot.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

#include "executor/pool/process_linux.h"
#include "executor/wire/protocol.h"

namespace ferry::detail {

worker_slot::worker_slot(launched_worker launched, std::string_view key, connection::settings settings)
    : pid_(launched.pid),
      thread_(std::move(launched.thread)),
      channel_(std::move(launched.results), std::move(launched.tasks), settings),
      pidfd_(std::move(launched.pidfd)),
      crash_pipe_(std::move(launched.crash)),
      out_(std::move(launched.out)),
      err_(std::move(launched.err)) {
  channel_.authenticate(key, channel_auth::side::pool);
}

void worker_slot::append_descriptors(std::vector<int>& out) const {
  for (const int fd : {socket(), pidfd(), crash_pipe(), output(1), output(2)})
    if (fd >= 0) out.push_back(fd);
  channel_.append_descriptors(out);
}

void worker_slot::read_output(int stream, bool to_the_end, const std::function<void(int, std::string_view)>& sink) {
  unique_fd& fd = stream == 1 ? out_ : err_;
  if (!fd) return;
  output_lines& lines = stream == 1 ? out_lines_ : err_lines_;
  const auto out = [&](std::string_view line) { sink(stream, line); };
  const bool open = lines.drain(fd.get(), out);
  if (!open || to_the_end) {
    // Closed, or its worker is gone: its last line, even unterminated, is
    // whole now; what a process it left behind writes later is not its.
    lines.finish(out);
    fd.reset();
  }
}

void worker_slot::close_channel() {
  if (!channel_.is_open()) return;
  channel_.close();
  closed_at_ = clock::now();
}

void worker_slot::end(end_cause why) {
  if (phase_ == phase::reaped) return;
  if (phase_ != phase::ending || why > cause_) cause_ = why;
  phase_ = phase::ending;
}

void worker_slot::send_hello(const std::string& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    channel_.send_unsigned({protocol::kind::hello, 0, body});  // tasks cannot be stopped, only killed
    return;
  }
  const unique_fd read_end(fds[0]);
  stop_pipe_ = unique_fd(fds[1]);
  const int passed[] = {read_end.get()};
  channel_.send_unsigned({protocol::kind::hello, 0, body, 0, passed});
}

void worker_slot::ask_to_stop(std::uint64_t id) {
  if (!stop_pipe_) return;
  // A worker that just died (not yet reaped) left the pipe without a
  // reader: the write fails with EPIPE and raises SIGPIPE, which must not
  // end the user's program. It is blocked on this thread for the write,
  // and taken if it came. (A pipe, not a socket, whose send could say
  // MSG_NOSIGNAL: a worker keeps two sockets, the pool's channel.)
  sigset_t pipe_signal, before;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_signal, &before);
  const ssize_t n = ::write(stop_pipe_.get(), &id, sizeof id);
  if (n < 0 && errno == EPIPE) {
    const timespec now{};
    while (::sigtimedwait(&pipe_signal, nullptr, &now) < 0 && errno == EINTR) {
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

std::optional<pool_task> worker_slot::send_task(pool_task t, std::uint8_t flags) {
  const outgoing m{protocol::kind::task, t.id, t.body, flags, t.attachments.view()};
  if (!t.goes_alone(channel_.current().shared_memory_threshold)) {
    channel_.queue(m);
  } else {
    try {
      channel_.send(m);
    } catch (const protocol_error&) {
      // The write failed before its last byte (a message with shared memory
      // goes in one sendmsg, all or nothing), and a worker runs only a whole
      // message that passed authentication: this task provably never ran
      // here, and goes back to be sent to another worker. The channel is
      // broken: closed, the worker's exit is what its tasks in flight
      // report, or if it lives on, the exit_grace deadline kills it.
      close_channel();
      end(end_cause::channel_lost);
      return t;
    }
  }
  if (in_flight_.empty()) {
    since_ = clock::now();
    t.running_since = since_;
    running_ = 1;
  }
  if (phase_ == phase::idle) phase_ = phase::busy;
  ++tasks_sent_;
  in_flight_.push_back(std::move(t));
  if (!channel_.has_queued()) in_flight_.front().forget_message(spare_);  // sent; running needs neither
  return std::nullopt;
}

std::vector<pool_task> worker_slot::flush() {
  std::vector<pool_task> unsent;
  if (!channel_.has_queued()) return unsent;
  // The messages that left whole may run; the rest provably never will (a
  // worker runs only a whole message that passed authentication).
  const std::size_t lost = channel_.flush();
  if (lost != 0) {
    unsent.resize(lost);  // the last `lost` in flight, in order
    for (std::size_t i = lost; i-- > 0;) {
      unsent[i] = std::move(in_flight_.back());
      in_flight_.pop_back();
    }
    tasks_sent_ -= lost;
    running_ = std::min(running_, in_flight_.size());
    close_channel();
    end(end_cause::channel_lost);
  }
  // A task that runs at once no longer needs its body; one queued behind
  // another keeps it until it starts, to be sent elsewhere if the worker
  // dies first.
  if (!in_flight_.empty()) in_flight_.front().forget_message(spare_);
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
  for (std::size_t i = std::max<std::size_t>(running_, 1); i < in_flight_.size(); ++i) n += in_flight_[i].body.size();
  return n;
}

void worker_slot::retire() {
  end(end_cause::retired);
  try {
    channel_.send({protocol::kind::exit});
  } catch (const protocol_error&) {
    stop();
  }
}

void worker_slot::stop() {
  if (!thread_) {
    kill_child(pid_, pidfd_.get());
  } else if (channel_.is_open()) {
    // A thread cannot be killed: it ends when its running task returns.
    channel_.shut_down();
  }
}

void worker_slot::kill(std::string why) {
  if (reaped()) return;
  if (!killed_by_pool()) failure_ = std::move(why);
  end(end_cause::killed);
  stop();
}

void worker_slot::kill_for_timeout() {
  if (reaped()) return;
  end(end_cause::killed_for_timeout);
  stop();
}

void worker_slot::kill_for_cancel() {
  if (reaped()) return;
  end(end_cause::killed_for_cancel);
  stop();
}

void worker_slot::kill_for_shutdown() {
  if (reaped()) return;
  end(end_cause::killed_for_shutdown);
  stop();
}

void worker_slot::became_ready(clock::time_point now) {
  if (phase_ != phase::starting) return;
  phase_ = phase::idle;
  since_ = now;
}

pool_task worker_slot::finish(std::uint64_t id, clock::time_point now) {
  if (running_ == 0 || in_flight_[running_ - 1].id != id)
    throw protocol_error("a result for a task the worker was not running");
  pool_task done;
  if (running_ == 1) {
    // The usual case, one task running: the front leaves (a deque's erase
    // costs some eighty instructions more a task than pop_front).
    done = std::move(in_flight_.front());
    in_flight_.pop_front();
  } else {
    const auto at = in_flight_.begin() + static_cast<std::ptrdiff_t>(running_ - 1);
    done = std::move(*at);
    in_flight_.erase(at);
  }
  --running_;
  // A moving average over about eight tasks: one slow task shrinks the
  // pipeline at once, a run of short ones deepens it.
  const clock::duration ran = now - done.running_since;
  typical_run_ = typical_run_ <= clock::duration::zero() ? ran : std::max(ran, (typical_run_ * 7 + ran) / 8);
  ++tasks_done_;
  if (running_ != 0) return done;  // back to the task below, which waits
  if (!in_flight_.empty()) {  // started
    in_flight_.front().forget_message(spare_);
    in_flight_.front().running_since = now;
    running_ = 1;
  }
  since_ = now;  // the next task starts now, or idleness does
  if (phase_ == phase::busy && in_flight_.empty()) phase_ = phase::idle;
  return done;
}

pool_task& worker_slot::began(std::uint64_t id, clock::time_point now) {
  // (Before it says its task waits, a worker may run what was already sent.)
  if (running_ == 0 || running_ >= in_flight_.size() || in_flight_[running_].id != id)
    throw protocol_error("a worker began a task out of turn");
  pool_task& t = in_flight_[running_++];
  t.forget_message(spare_);
  t.running_since = now;
  return t;
}

void worker_slot::set_waiting(std::uint64_t id, bool waiting) {
  pool_task* t = innermost();
  if (t == nullptr || t->id != id) throw protocol_error("a waiting or resumed message for a task not innermost");
  t->waiting = waiting;
}

void worker_slot::send_nested_result(std::uint64_t id, std::string_view body) {
  if (!channel_.is_open()) return;
  try {
    channel_.send({protocol::kind::nested_result, id, body});
  } catch (const protocol_error&) {
    close_channel();
    end(end_cause::channel_lost);
  }
}

void worker_slot::read(const message_handler& on_message, read_until until) {
  if (!channel_.is_open()) return;
  try {
    for (;;) {
      const auto got = channel_.fill();
      while (std::optional<message> m = channel_.next()) on_message(*this, *m);
      if (got == message_reader::fill_result::end) {
        // Normally the process is exiting; the exit_grace deadline kills it
        // if not.
        close_channel();
        return;
      }
      if (got == message_reader::fill_result::nothing) return;
      if (until == read_until::short_read && channel_.last_fill_short()) return;
    }
  } catch (const protocol_error& e) {
    close_channel();
    kill(std::string("was killed by the pool after a protocol error: ") + e.what());
  } catch (const authentication_failure& e) {
    // Whatever wrote that message may have written others: nothing more is
    // read from this worker.
    close_channel();
    kill(std::string("was killed by the pool as compromised: ") + e.what());
  }
}

exit_facts worker_slot::reap(const message_handler& on_message) {
  const std::optional<int> status = thread_ ? std::optional<int>(thread_->join()) : reap_child(pid_, pidfd_.get());
  read(on_message, read_until::drained);  // a result written just before exiting
  close_channel();
  pidfd_.reset();
  const std::optional<end_cause> why = cause();
  exit_facts facts{pid_,
                   status,
                   phase_ == phase::starting,  // it ended before saying ready, unasked
                   why == end_cause::killed_for_timeout,
                   why == end_cause::killed_for_shutdown,
                   why == end_cause::killed_for_cancel
                       ? std::optional<std::chrono::milliseconds>(innermost() == nullptr ? std::chrono::milliseconds(0)
                                                                                          : innermost()->stop_grace)
                       : std::nullopt,
                   failure_,
                   start_failure_,
                   innermost() == nullptr ? std::nullopt : innermost()->timeout};
  // What it wrote as it died; a worker that exited or was killed wrote nothing.
  if (status && WIFSIGNALED(*status) && !in_flight_.empty())
    facts.crash = parse_crash_record(read_crash_pipe(crash_pipe_.get()));
  phase_ = phase::reaped;
  return facts;
}

}  // namespace ferry::detail
