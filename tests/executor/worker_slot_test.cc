// Copyright ferry authors.
//
// One worker as the manager sees it (src/executor/pool/worker_slot.h): its
// life as one state machine, the cause it ends for and which cause wins,
// the deadlines each state puts it under, and the tasks a broken channel
// gives back. The worker is a real child process that waits to be killed;
// the test plays the worker's end of the socket.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "executor/pool/process_linux.h"
#include "executor/pool/worker_slot.h"

using ferry::detail::exit_facts;
using ferry::detail::launched_worker;
using ferry::detail::message;
using ferry::detail::pool_task;
using ferry::detail::unique_fd;
using ferry::detail::worker_slot;
namespace protocol = ferry::detail::protocol;
using phase = worker_slot::phase;
using cause = worker_slot::end_cause;
using deadline = worker_slot::deadline;

namespace {

const std::string key(protocol::key_size, 'k');

// A child that waits until it is killed (or exits with `exit_code` at once
// when given one), and the slot the pool would hold for it.
struct child_worker {
  unique_fd worker_end;  // the test's side of the socket
  std::optional<worker_slot> slot;

  explicit child_worker(std::optional<int> exit_code = std::nullopt, std::size_t threshold = SIZE_MAX) {
    int sv[2], crash[2], settled[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    EXPECT_EQ(::pipe2(crash, O_CLOEXEC | O_NONBLOCK), 0);
    EXPECT_EQ(::pipe2(settled, O_CLOEXEC), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      // The test plays the worker's end: the child holds none of the
      // socket, and says so by closing its end of `settled`.
      ::close(sv[0]);
      ::close(sv[1]);
      ::close(settled[1]);
      if (exit_code) ::_exit(*exit_code);
      for (;;) ::pause();
    }
    ::close(crash[1]);
    ::close(settled[1]);
    char byte;
    while (::read(settled[0], &byte, 1) < 0 && errno == EINTR) {
    }
    ::close(settled[0]);
    launched_worker l;
    l.pid = pid;
    l.results = unique_fd(sv[0]);  // and tasks none: one socket for both ways
    l.pidfd = unique_fd(ferry::detail::open_exit_fd(pid, -1));
    l.crash = unique_fd(crash[0]);
    worker_end = unique_fd(sv[1]);
    slot.emplace(std::move(l), key, ferry::detail::connection::settings{1u << 20, threshold, false});
  }
  ~child_worker() {
    if (slot && !slot->reaped()) {
      ::kill(slot->pid(), SIGKILL);
      reap();
    }
  }
  exit_facts reap() {
    return slot->reap([](worker_slot&, message&) {});
  }
};

pool_task task(std::uint64_t id, std::string body = "body") {
  pool_task t;
  t.id = id;
  t.body = std::move(body);
  return t;
}

std::vector<deadline> deadlines(const worker_slot& w) {
  std::vector<deadline> out;
  w.each_deadline({std::nullopt, std::chrono::milliseconds(1000)}, [&](deadline d, auto) { out.push_back(d); });
  return out;
}

}  // namespace

TEST(WorkerSlot, ItStartsThenIsIdleWhenReadyBusyWithATaskAndIdleAgainWhenItFinishes) {
  child_worker c;
  worker_slot& w = *c.slot;
  EXPECT_EQ(w.state(), phase::starting);
  EXPECT_TRUE(w.alive());
  EXPECT_FALSE(w.ready());
  EXPECT_EQ(deadlines(w), std::vector{deadline::start_timeout});
  w.became_ready(std::chrono::steady_clock::now());
  EXPECT_EQ(w.state(), phase::idle);
  EXPECT_EQ(deadlines(w), std::vector{deadline::idle_timeout});
  EXPECT_FALSE(w.send_task(task(1), 0));
  EXPECT_FALSE(w.send_task(task(2), 0));
  EXPECT_EQ(w.flush().size(), 0u);
  EXPECT_EQ(w.state(), phase::busy);
  EXPECT_EQ(w.in_flight().size(), 2u);
  EXPECT_EQ(w.finish(1, std::chrono::steady_clock::now()).id, 1u);
  EXPECT_EQ(w.state(), phase::busy);
  EXPECT_EQ(w.finish(2, std::chrono::steady_clock::now()).id, 2u);
  EXPECT_EQ(w.state(), phase::idle);
  EXPECT_EQ(w.tasks_done(), 2u);
  EXPECT_FALSE(w.cause());
}

TEST(WorkerSlot, ATaskBegunOnTopOfAWaitingOneFinishesFirstAndTheOneBelowRunsOn) {
  child_worker c;
  worker_slot& w = *c.slot;
  w.became_ready(std::chrono::steady_clock::now());
  EXPECT_FALSE(w.send_task(task(1), 0));
  EXPECT_EQ(w.flush().size(), 0u);
  EXPECT_EQ(w.running(), 1u);
  EXPECT_EQ(w.waiting_for_children(), nullptr) << "it does not wait yet";
  w.set_waiting(1, true);
  ASSERT_NE(w.waiting_for_children(), nullptr);
  EXPECT_EQ(w.waiting_for_children()->id, 1u);
  EXPECT_FALSE(w.send_task(task(2), 0));
  EXPECT_EQ(w.flush().size(), 0u);
  EXPECT_EQ(w.waiting_for_children(), nullptr) << "one child in flight at a time";
  EXPECT_EQ(w.running(), 1u) << "a task sent to a waiting worker runs once it says it began";
  EXPECT_THROW(w.began(3, std::chrono::steady_clock::now()), ferry::detail::protocol_error);
  EXPECT_EQ(w.began(2, std::chrono::steady_clock::now()).id, 2u);
  EXPECT_EQ(w.running(), 2u);
  EXPECT_EQ(w.innermost()->id, 2u);
  EXPECT_EQ(deadlines(w), std::vector<deadline>{});
  EXPECT_THROW(w.finish(1, std::chrono::steady_clock::now()), ferry::detail::protocol_error)
      << "the innermost finishes first";
  EXPECT_THROW(w.set_waiting(1, false), ferry::detail::protocol_error) << "only the innermost waits or resumes";
  EXPECT_EQ(w.finish(2, std::chrono::steady_clock::now()).id, 2u);
  EXPECT_EQ(w.running(), 1u);
  EXPECT_EQ(w.state(), phase::busy);
  w.set_waiting(1, false);
  EXPECT_EQ(w.waiting_for_children(), nullptr);
  EXPECT_EQ(w.finish(1, std::chrono::steady_clock::now()).id, 1u);
  EXPECT_EQ(w.state(), phase::idle);
  EXPECT_EQ(w.running(), 0u);
}

TEST(WorkerSlot, AKillForShutdownOutranksATimeoutWhichOutranksAKillWithAReason) {
  child_worker c;
  worker_slot& w = *c.slot;
  w.became_ready(std::chrono::steady_clock::now());
  EXPECT_FALSE(w.send_task(task(1), 0));
  EXPECT_EQ(w.flush().size(), 0u);
  w.kill("first reason");
  EXPECT_EQ(w.state(), phase::ending);
  EXPECT_FALSE(w.alive());
  EXPECT_EQ(w.cause(), cause::killed);
  w.kill("second reason");  // the first reason stays
  w.kill_for_timeout();
  EXPECT_EQ(w.cause(), cause::killed_for_timeout);
  w.kill_for_shutdown();
  EXPECT_TRUE(w.stopped_by_shutdown());
  w.kill_for_timeout();  // ranks lower: shutdown stays
  w.retire();
  EXPECT_EQ(w.cause(), cause::killed_for_shutdown);
  EXPECT_TRUE(deadlines(w).empty());  // killed: no deadline is left to enforce
  const exit_facts f = c.reap();
  EXPECT_EQ(w.state(), phase::reaped);
  EXPECT_TRUE(w.reaped());
  EXPECT_TRUE(f.stopped_by_shutdown);
  EXPECT_FALSE(f.timed_out);
  EXPECT_FALSE(f.was_starting);
  EXPECT_EQ(f.failure, "first reason");
  EXPECT_TRUE(f.status && WIFSIGNALED(*f.status) && WTERMSIG(*f.status) == SIGKILL);
  EXPECT_EQ(w.pidfd(), -1);
  EXPECT_EQ(w.socket(), -1);
}

TEST(WorkerSlot, ARetiredWorkerKilledLaterReportsTheKillsReason) {
  child_worker c;
  worker_slot& w = *c.slot;
  w.became_ready(std::chrono::steady_clock::now());
  w.retire();
  EXPECT_EQ(w.cause(), cause::retired);
  EXPECT_FALSE(w.alive());
  w.kill("did not exit when asked");
  EXPECT_EQ(w.cause(), cause::killed);
  EXPECT_EQ(c.reap().failure, "did not exit when asked");
}

TEST(WorkerSlot, AWorkerThatEndsByItselfBeforeItIsReadyWasStarting) {
  child_worker c(3);
  const exit_facts f = c.reap();
  EXPECT_TRUE(f.was_starting);
  EXPECT_TRUE(f.status && WIFEXITED(*f.status) && WEXITSTATUS(*f.status) == 3);
  EXPECT_TRUE(f.failure.empty());
  EXPECT_FALSE(f.timed_out || f.stopped_by_shutdown);
}

TEST(WorkerSlot, AStartingWorkerThePoolKillsWasNotStartingByItself) {
  child_worker c;
  c.slot->kill("did not become ready");
  const exit_facts f = c.reap();
  EXPECT_FALSE(f.was_starting);
  EXPECT_EQ(f.failure, "did not become ready");
}

TEST(WorkerSlot, AClosedChannelPutsTheWorkerUnderExitGraceUntilThePoolKillsIt) {
  child_worker c;
  worker_slot& w = *c.slot;
  w.became_ready(std::chrono::steady_clock::now());
  c.worker_end.reset();
  w.read([](worker_slot&, message&) { FAIL() << "no message was written"; });
  EXPECT_EQ(w.socket(), -1);
  EXPECT_EQ(deadlines(w), (std::vector{deadline::exit_grace, deadline::idle_timeout}));
  w.kill("closed its connection");
  EXPECT_TRUE(deadlines(w).empty());
}

TEST(WorkerSlot, AnInlineBatchThatCannotLeaveComesBackAndTheChannelIsLost) {
  child_worker c;
  worker_slot& w = *c.slot;
  w.became_ready(std::chrono::steady_clock::now());
  c.worker_end.reset();
  EXPECT_FALSE(w.send_task(task(1), 0));
  EXPECT_FALSE(w.send_task(task(2), 0));
  const std::vector<pool_task> back = w.flush();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].id, 1u);
  EXPECT_EQ(back[0].body, "body");  // kept, to be sent to another worker
  EXPECT_EQ(back[1].id, 2u);
  EXPECT_TRUE(w.in_flight().empty());
  EXPECT_EQ(w.cause(), cause::channel_lost);
  EXPECT_EQ(w.tasks_sent(), 0u);
}

TEST(WorkerSlot, ATaskThatGoesAloneAndCannotBeWrittenComesBackAtOnce) {
  child_worker c(std::nullopt, 16);
  worker_slot& w = *c.slot;
  w.became_ready(std::chrono::steady_clock::now());
  c.worker_end.reset();
  std::optional<pool_task> back = w.send_task(task(5, std::string(64, 'x')), 0);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->id, 5u);
  EXPECT_EQ(w.cause(), cause::channel_lost);
  EXPECT_FALSE(w.alive());
}

TEST(WorkerSlot, ATaskPastItsTimeoutIsTheBusyWorkersDeadline) {
  child_worker c;
  worker_slot& w = *c.slot;
  w.became_ready(std::chrono::steady_clock::now());
  pool_task t = task(1);
  t.timeout = std::chrono::milliseconds(5);
  EXPECT_FALSE(w.send_task(std::move(t), 0));
  EXPECT_EQ(w.flush().size(), 0u);
  EXPECT_EQ(deadlines(w), std::vector{deadline::task_timeout});
  w.kill_for_timeout();
  EXPECT_TRUE(deadlines(w).empty());
  EXPECT_TRUE(c.reap().timed_out);
}
