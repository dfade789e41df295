// Copyright ferry authors.
#include <executor/internal/map_window.h>
#include <executor/internal/deadline.h>

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <utility>

#include "executor/maps/chunk_rule.h"
#include <executor/errors.h>
#include "executor/observe/progress_line.h"
#include "internal/mutex.h"

namespace ferry::detail {

namespace {

using clock = std::chrono::steady_clock;

// Chunks as they finish, told by their futures' on_done callbacks (on the
// pool's manager thread): the order of map_unordered, and the rate the
// chunk rule reads.
class finish_log {
 public:
  struct entry {
    std::size_t seq;
    std::uint32_t count;
    clock::time_point at;
  };

  void push(entry e) {
    mutex_lock lock(mu_);
    entries_.push_back(e);
    cv_.notify_all();
  }
  // Waits for an entry until the deadline (none: unbounded); false if none came.
  bool wait(std::optional<clock::time_point> deadline) {
    mutex_lock lock(mu_);
    while (entries_.empty()) {
      if (!deadline) {
        cv_.wait(lock.native());
      } else if (cv_.wait_until(lock.native(), *deadline) == std::cv_status::timeout) {
        return !entries_.empty();
      }
    }
    return true;
  }
  std::deque<entry> take() {
    mutex_lock lock(mu_);
    return std::exchange(entries_, {});
  }

 private:
  mutex mu_;
  std::condition_variable cv_;
  std::deque<entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

struct map_window::state {
  struct out_chunk {
    std::size_t seq;
    finished chunk;
  };

  std::unique_ptr<chunk_source> source;
  bool in_input_order = true;
  std::size_t fixed_chunksize = 0;  // 0: the rule decides
  chunk_rule rule;
  std::size_t max_in_flight = 1;
  std::optional<clock::time_point> deadline;
  std::optional<std::chrono::milliseconds> stop_running;  // map_options::stop_running

  std::deque<out_chunk> out;  // sent, not yet handed to the caller, in input order
  std::size_t next_seq = 0;
  std::size_t next_index = 0;
  bool input_ended = false;
  std::shared_ptr<finish_log> log = std::make_shared<finish_log>();
  std::deque<finish_log::entry> unclaimed;  // finished, in finishing order (map_unordered)

  // What the rule measures: inputs finished since the first chunk finished.
  std::size_t last_size = chunk_rule::first;
  std::optional<clock::time_point> first_finish;
  clock::time_point latest_finish;
  std::size_t done = 0;
  std::size_t finished_items = 0;  // every finished chunk's, for the bar
  // Inputs of the chunks handed out: a chunk's log entry is pushed by its
  // completion callback, which may run after a waiter saw it finished, so
  // the bar counts at least what was handed out (its last draw says 300 of
  // 300, not 299).
  std::size_t returned_items = 0;
  std::optional<progress_line> bar;  // map_options::progress on a terminal

  // How long one wait may last: without a bar, until the deadline; with
  // one, a tenth of a second, so that it is redrawn as chunks finish.
  std::optional<clock::time_point> wait_limit() const {
    if (!bar) return deadline;
    const auto soon = clock::now() + std::chrono::milliseconds(100);
    return deadline ? std::min(*deadline, soon) : soon;
  }
  bool past_deadline() const { return deadline && clock::now() >= *deadline; }
  void redraw(bool last = false) {
    if (bar) bar->update(std::max(finished_items, returned_items), last);
  }

  void cancel_all() {
    for (out_chunk& c : out) {
      if (stop_running) c.chunk.state->request_stop(*stop_running);
      else c.chunk.state->cancel();
    }
    out.clear();
    input_ended = true;
  }

  void account(const finish_log::entry& e) {
    finished_items += e.count;
    if (!first_finish) {
      first_finish = e.at;
      latest_finish = e.at;
      return;
    }
    done += e.count;
    latest_finish = std::max(latest_finish, e.at);
  }

  void drain_log() {
    for (const finish_log::entry& e : log->take()) {
      account(e);
      if (!in_input_order) unclaimed.push_back(e);
    }
  }

  std::size_t next_size() {
    if (fixed_chunksize != 0) return fixed_chunksize;
    const auto busy = first_finish ? latest_finish - *first_finish : clock::duration::zero();
    last_size = rule.next(last_size, done, busy);
    return last_size;
  }

  // Sends chunks until the window is full or the input ends.
  void top_up() {
    while (!input_ended && out.size() < max_in_flight) {
      drain_log();
      const std::size_t size = std::min<std::size_t>(next_size(), std::numeric_limits<std::uint32_t>::max());
      chunk_source::submitted s;
      try {
        s = source->next(static_cast<std::uint32_t>(size));
      } catch (...) {
        cancel_all();
        throw;
      }
      if (s.count == 0) {
        input_ended = true;
        return;
      }
      const std::size_t seq = next_seq++;
      s.state->on_done([log = log, seq, count = s.count] { log->push({seq, count, clock::now()}); });
      out.push_back({seq, {std::move(s.state), s.count, next_index}});
      next_index += s.count;
    }
  }

  [[noreturn]] void time_out() {
    cancel_all();
    throw wait_timeout_error("ferry: map did not finish in time; the inputs not yet sent were cancelled");
  }

  std::optional<finished> next_in_order() {
    if (out.empty()) return std::nullopt;
    const finished& front = out.front().chunk;
    for (;;) {
      const std::optional<clock::time_point> limit = wait_limit();
      if (!limit) {
        front.state->wait();
        break;
      }
      if (front.state->wait_until(*limit)) break;
      if (past_deadline()) time_out();
      drain_log();
      redraw();
    }
    finished f = std::move(out.front().chunk);
    out.pop_front();
    drain_log();
    redraw();
    return f;
  }

  std::optional<finished> next_finished() {
    while (!out.empty()) {
      drain_log();
      redraw();
      while (!unclaimed.empty()) {
        const std::size_t seq = unclaimed.front().seq;
        unclaimed.pop_front();
        const auto it = std::find_if(out.begin(), out.end(), [&](const out_chunk& c) { return c.seq == seq; });
        if (it == out.end()) continue;
        finished f = std::move(it->chunk);
        out.erase(it);
        return f;
      }
      if (!log->wait(wait_limit()) && past_deadline()) time_out();
    }
    return std::nullopt;
  }
};

map_window::map_window(std::unique_ptr<chunk_source> source, const map_options& options, std::size_t workers,
                       std::optional<std::size_t> input_size, bool in_input_order)
    : s_(std::make_unique<state>()) {
  s_->source = std::move(source);
  s_->in_input_order = in_input_order;
  s_->fixed_chunksize = options.chunksize;
  s_->rule.workers = std::max<std::size_t>(workers, 1);
  s_->rule.input_size = input_size;
  s_->max_in_flight =
      options.max_chunks_in_flight != 0 ? options.max_chunks_in_flight : 4 * s_->rule.workers;
  if (options.timeout) s_->deadline = deadline_after(*options.timeout);
  s_->stop_running = options.stop_running;
  if (options.progress) s_->bar.emplace(STDERR_FILENO, input_size);
  s_->top_up();
}

map_window::~map_window() {
  if (!s_) return;
  s_->cancel_all();
  s_->redraw(true);  // where it stopped, if it stopped early
}

std::optional<map_window::finished> map_window::next() {
  s_->top_up();
  std::optional<finished> f = s_->in_input_order ? s_->next_in_order() : s_->next_finished();
  if (f) s_->returned_items += f->count;
  if (!f) s_->redraw(true);
  return f;
}

}  // namespace ferry::detail
