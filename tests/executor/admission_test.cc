// Copyright ferry authors.
//
// What a pool may queue (src/executor/core/admission.cc), decided before
// anything is sent, for process_pool and mpi_pool alike: each refusal
// with its error, and a task that passes.
#include "executor/core/admission.h"

#include <gtest/gtest.h>

#include <fcntl.h>

#include <stdexcept>
#include <string>
#include <variant>

#include <executor/errors.h>
#include <serialize/error.h>

#include "../error_message.h"

namespace {

using ferry::detail::admit;
using ferry::detail::refusal;
using ferry::detail::protocol::encoded_task;
using ferry_test::message_of;

// A task whose function and arguments write nothing, or throw.
struct empty_task final : ferry::detail::task_writer {
  bool throws = false;
  void write_function(ferry::output_archive&) const override {
    if (throws) throw std::runtime_error("cannot write this capture");
  }
  void write_arguments(ferry::output_archive&) const override {}
};

}  // namespace

TEST(Admission, AnOrdinaryTaskIsAdmittedEncoded) {
  const empty_task task;
  const auto admitted = admit(task, 1, ferry::pool_options{});
  ASSERT_TRUE(std::holds_alternative<encoded_task>(admitted));
  EXPECT_FALSE(std::get<encoded_task>(admitted).body.empty());
  EXPECT_EQ(refusal(std::get<encoded_task>(admitted), ferry::pool_options{}), nullptr);
}

TEST(Admission, ATaskThatCannotBeWrittenFailsAsSavingTaskWithTheCause) {
  empty_task task;
  task.throws = true;
  const auto admitted = admit(task, 1, ferry::pool_options{});
  ASSERT_TRUE(std::holds_alternative<std::shared_ptr<ferry::detail::future_state>>(admitted));
  const auto& state = std::get<std::shared_ptr<ferry::detail::future_state>>(admitted);
  ASSERT_TRUE(state->ready());
  try {
    std::rethrow_exception(state->error());
  } catch (const ferry::serialization_error& e) {
    EXPECT_EQ(e.where(), ferry::serialization_error::phase::saving_task);
    EXPECT_EQ(e.message(), "cannot write this capture");
  }
}

TEST(Admission, AMessageOverTheLimitIsRefusedNamingBothSizes) {
  encoded_task task;
  task.body.assign(2000, 'x');
  ferry::pool_options workers;
  workers.max_message_size = 1000;
  const std::string what = message_of<ferry::error>(refusal(task, workers));
  EXPECT_NE(what.find("2000 bytes exceeds pool_options::max_message_size (1000 bytes)"), std::string::npos) << what;
  workers.max_message_size = 2000;
  EXPECT_EQ(refusal(task, workers), nullptr);
}

TEST(Admission, MainProgramCodeIsRefusedForPluginWorkersOnly) {
  encoded_task task;
  task.body = "x";
  task.names_main_program = true;
  ferry::pool_options workers;
  workers.start = ferry::start_method::plugin;
  EXPECT_NE(message_of<ferry::not_shippable_error>(refusal(task, workers)).find("put the code in a shared library"),
            std::string::npos);
  workers.start = ferry::start_method::spawn;
  EXPECT_EQ(refusal(task, workers), nullptr);
}

TEST(Admission, MoreSharedBuffersThanAMessageCarriesAreRefused) {
  encoded_task task;
  task.body = "x";
  for (std::size_t i = 0; i <= ferry::detail::protocol::max_attachments; ++i)
    task.attachments.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const std::string what = message_of<ferry::error>(refusal(task, ferry::pool_options{}));
  EXPECT_NE(what.find("passes 65 ferry::shared_buffer values, more than a message carries (64)"), std::string::npos)
      << what;
}
