// Copyright ferry authors.
//
// src/executor/front/actor_handle.cc: an actor's id, and its handle's
// link to the pool, which it does not keep: the last handle gone sends the
// task that drops the object in its worker, to a pool that still exists.
// The pool here is a queue that keeps what is submitted to it.
#include <executor/actor.h>

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

#include <executor/errors.h>
#include <executor/internal/actor_parts.h>
#include <executor/internal/submit.h>

namespace {

using ferry::detail::actor_route;
using ferry::detail::task_settings;

// What one submitted task carried.
struct submitted {
  actor_route actor;
  std::uint32_t count = 0;
  std::uint64_t argument = 0;  // the drop task's one argument: the actor's id
};

class keeping_queue final : public ferry::detail::task_queue {
 public:
  std::shared_ptr<ferry::detail::future_state> submit_task(const ferry::detail::task_writer& task,
                                                           std::uint32_t count) override {
    if (shut) throw ferry::pool_shutdown_error("ferry: the pool was shut down");
    std::string bytes;
    {
      ferry::output_archive ar(bytes);
      task.write_arguments(ar);
    }
    submitted s{task.settings().actor, count, 0};
    ferry::input_archive in(bytes);
    in(s.argument);
    tasks.push_back(s);
    return ferry::detail::make_future_state();
  }
  void shutdown(ferry::shutdown_options) override { shut = true; }
  bool is_shutdown() const override { return shut; }
  unsigned task_retries() const override { return 0; }
  std::size_t max_workers() const override { return 1; }
  ferry::pool_observer* observer() const override { return nullptr; }

  std::vector<submitted> tasks;
  bool shut = false;
};

TEST(ActorHandle, IdsNeverRepeatAndAreNeverZero) {
  std::set<std::uint64_t> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(ferry::detail::new_actor_id());
  EXPECT_EQ(ids.size(), 1000u);
  EXPECT_EQ(ids.count(0), 0u);
}

TEST(ActorHandle, TheLastHandleGoneSendsOneDropTaskForItsId) {
  auto queue = std::make_shared<keeping_queue>();
  {
    ferry::detail::actor_handle handle(queue, 1234);
    EXPECT_EQ(handle.id(), 1234u);
    EXPECT_EQ(handle.queue(), queue);
    EXPECT_TRUE(queue->tasks.empty());
  }
  ASSERT_EQ(queue->tasks.size(), 1u);
  EXPECT_EQ(queue->tasks[0].actor.what, actor_route::part::drop);
  EXPECT_EQ(queue->tasks[0].actor.id, 1234u);
  EXPECT_EQ(queue->tasks[0].count, 1u);
  EXPECT_EQ(queue->tasks[0].argument, 1234u);
}

TEST(ActorHandle, AHandleDoesNotKeepItsPool) {
  auto queue = std::make_shared<keeping_queue>();
  const std::weak_ptr<keeping_queue> watch = queue;
  ferry::detail::actor_handle handle(queue, 5);
  queue.reset();
  EXPECT_TRUE(watch.expired());
  EXPECT_THROW(handle.queue(), ferry::pool_shutdown_error);
}  // and its end sends nothing, to nobody

TEST(ActorHandle, AHandleOfAPoolShutDownEndsQuietly) {
  auto queue = std::make_shared<keeping_queue>();
  queue->shut = true;
  EXPECT_NO_THROW({ ferry::detail::actor_handle handle(queue, 9); });
  EXPECT_TRUE(queue->tasks.empty());
}

}  // namespace
