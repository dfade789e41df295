// Copyright ferry authors.
//
// Every executor message kind written and read back by protocol.{h,cc}, and
// every cut of its bytes refused with a typed error.
#include "executor/wire/protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <string>

#include <executor/executor.h>

#include "executor/wire/message_io.h"

namespace protocol = ferry::detail::protocol;

namespace {

// Each strict prefix of `bytes` makes `read` throw a ferry::error (never
// crash or succeed).
void expect_every_cut_refused(const std::string& bytes,
                              const std::function<void(std::string_view)>& read) {
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    try {
      read(std::string_view(bytes).substr(0, n));
      ADD_FAILURE() << "a cut of " << n << " of " << bytes.size() << " bytes was accepted";
    } catch (const ferry::error&) {
    }
  }
}

struct tiny_writer final : ferry::detail::task_writer {
  ferry::function<int(int)> fn;
  std::vector<int> args;
  void write_function(ferry::output_archive& ar) const override { ar(fn); }
  void write_arguments(ferry::output_archive& ar) const override {
    for (int a : args) ar(a);
  }
};

}  // namespace

TEST(Protocol, HeaderRoundTrip) {
  const protocol::header h = protocol::make_header(protocol::kind::result, 42, 1000, protocol::flag_retiring);
  char bytes[protocol::header_size];
  std::memcpy(bytes, &h, sizeof h);
  const protocol::header back = protocol::read_header(bytes, 1000);
  EXPECT_EQ(back.type, protocol::kind::result);
  EXPECT_EQ(back.id, 42u);
  EXPECT_EQ(back.length, 1000u);
  EXPECT_EQ(back.flags, protocol::flag_retiring);
}

TEST(Protocol, HeaderWithBadMagicOrOversizedBodyIsRefused) {
  protocol::header h = protocol::make_header(protocol::kind::task, 1, 2048, 0);
  char bytes[protocol::header_size];
  std::memcpy(bytes, &h, sizeof h);
  EXPECT_THROW(protocol::read_header(bytes, 1024), ferry::detail::protocol_error);
  h.length = 10;
  h.magic ^= 1;
  std::memcpy(bytes, &h, sizeof h);
  EXPECT_THROW(protocol::read_header(bytes, 1024), ferry::detail::protocol_error);
}

TEST(Protocol, HelloRoundTrip) {
  protocol::worker_config config;
  config.env = {{"A", "1"}, {"B", "two"}};
  config.policy.allowed_modules = {"/opt/plugins", "/usr/lib/libx.so"};
  config.policy.module_search_paths = {"/srv/modules"};
  config.max_message_size = 123456;
  config.shared_memory_threshold = 789;
  config.max_worker_memory = 1u << 30;
  config.spin_us = 75;
  const ferry::function<void()> init = [] {};
  const std::string key(protocol::key_size, 'k');
  const std::string body = protocol::encode_hello(key, config, protocol::encode_initializer(init));

  protocol::hello_reader in(body);
  EXPECT_EQ(in.key(), key);
  EXPECT_EQ(in.config().env, config.env);
  EXPECT_EQ(in.config().policy.allowed_modules, config.policy.allowed_modules);
  EXPECT_EQ(in.config().policy.module_search_paths, config.policy.module_search_paths);
  EXPECT_EQ(in.config().max_message_size, 123456u);
  EXPECT_EQ(in.config().shared_memory_threshold, 789u);
  EXPECT_EQ(in.config().max_worker_memory, 1u << 30);
  EXPECT_EQ(in.config().spin_us, 75u);
  EXPECT_TRUE(static_cast<bool>(in.initializer()));
}

TEST(Protocol, HelloCutAnywhereIsRefused) {
  protocol::worker_config config;
  config.env = {{"A", "1"}};
  config.policy.allowed_modules = {"/opt/plugins"};
  const std::string body =
      protocol::encode_hello(std::string(protocol::key_size, 'k'), config, protocol::encode_initializer([] {}));
  expect_every_cut_refused(body, [](std::string_view cut) {
    protocol::hello_reader in(cut);
    (void)in.initializer();
  });
}

TEST(Protocol, ASubmitMessageRoundTripsItsSettingsAndItsTasksBody) {
  const std::string body = protocol::encode_submit({std::chrono::milliseconds(1500), "child", -3}, "task bytes");
  const protocol::decoded_submit d = protocol::decode_submit(body);
  EXPECT_EQ(d.timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(d.name, "child");
  EXPECT_EQ(d.priority, -3);
  EXPECT_EQ(d.body, "task bytes");
  const protocol::decoded_submit plain = protocol::decode_submit(protocol::encode_submit({}, ""));
  EXPECT_FALSE(plain.timeout);
  EXPECT_EQ(plain.name, "");
  EXPECT_EQ(plain.body, "");
}

TEST(Protocol, ASubmitMessageCutInItsSettingsOrWithABadFlagIsRefused) {
  const std::string body = protocol::encode_submit({std::nullopt, "a name", 1}, "");
  for (std::size_t n = 0; n < body.size(); ++n)
    EXPECT_THROW(protocol::decode_submit(std::string_view(body).substr(0, n)), ferry::detail::protocol_error) << n;
  std::string bad_flag = body;
  bad_flag[4] = 2;
  EXPECT_THROW(protocol::decode_submit(bad_flag), ferry::detail::protocol_error);
  std::string long_name = body;
  long_name[13] = static_cast<char>(0xff);  // a name longer than what follows
  EXPECT_THROW(protocol::decode_submit(long_name), ferry::detail::protocol_error);
}

TEST(Protocol, TaskRoundTrip) {
  tiny_writer w;
  w.fn = [](int x) { return x + 1; };
  w.args = {10, 20};
  const protocol::encoded_task t = protocol::encode_task(w, 2);
  ferry::input_archive ar(t.body);
  const protocol::task_head head = protocol::read_task(ar);
  EXPECT_EQ(head.count, 2u);
  ASSERT_NE(head.function, nullptr);
  int a = 0, b = 0;
  ar(a, b);
  EXPECT_EQ(a, 10);
  EXPECT_EQ(b, 20);
  EXPECT_EQ(ar.remaining(), 0u);
}

TEST(Protocol, TaskCutAnywhereIsRefused) {
  tiny_writer w;
  w.fn = [](int x) { return x + 1; };
  w.args = {10};
  const protocol::encoded_task t = protocol::encode_task(w, 1);
  // The arguments are read by the function, item by item: a cut inside them
  // is found there (run_task_test.cc); the head refuses every other cut.
  const std::size_t head_size = t.body.size() - sizeof(int);
  expect_every_cut_refused(t.body.substr(0, head_size + 1), [](std::string_view cut) {
    ferry::input_archive ar(cut);
    const protocol::task_head head = protocol::read_task(ar);
    int v;
    ar(v);
  });
}

TEST(Protocol, ExceptionRecordRoundTrip) {
  const protocol::exception_record r{protocol::exception_kind::serialization, "my::type", "what it said",
                                     ferry::serialization_error::phase::saving_result};
  std::string bytes;
  ferry::output_archive out(bytes);
  protocol::write_exception(out, r);
  ferry::input_archive in(bytes);
  const protocol::exception_record back = protocol::read_exception(in);
  EXPECT_EQ(back.kind, r.kind);
  EXPECT_EQ(back.type_name, "my::type");
  EXPECT_EQ(back.what, "what it said");
  EXPECT_EQ(back.phase, ferry::serialization_error::phase::saving_result);
  expect_every_cut_refused(bytes, [](std::string_view cut) {
    ferry::input_archive ar(cut);
    (void)protocol::read_exception(ar);
  });
}

TEST(Protocol, ExceptionRecordOfUnknownKindIsRefused) {
  std::string bytes;
  ferry::output_archive out(bytes);
  out(std::uint8_t{200}, std::string("t"), std::string("w"));
  ferry::input_archive in(bytes);
  EXPECT_THROW(protocol::read_exception(in), ferry::error);
}

TEST(Protocol, ResultRoundTrip) {
  protocol::result_writer w(3);
  w.begin_value()(7);
  w.end_item();
  w.begin_value()(std::string("half written"));
  w.fail({protocol::exception_kind::runtime_error, "std::runtime_error", "boom"});
  w.end_item();
  w.repeat_item();
  const std::string body = w.finish();

  const protocol::decoded_result r = protocol::decode_result(body, 3);
  ASSERT_FALSE(r.whole_failed);
  ASSERT_EQ(r.items.size(), 3u);
  const protocol::decoded_item first = protocol::decode_item(r.items[0]);
  ASSERT_FALSE(first.failed);
  int v = 0;
  ferry::input_archive ar(first.value);
  ar(v);
  EXPECT_EQ(v, 7);
  for (int i : {1, 2}) {
    const protocol::decoded_item item = protocol::decode_item(r.items[i]);
    ASSERT_TRUE(item.failed) << i;
    EXPECT_EQ(item.failure.what, "boom");
  }
  EXPECT_THROW(protocol::decode_result(body, 2), ferry::error);  // not the items sent
}

TEST(Protocol, ResultCutAnywhereIsRefused) {
  protocol::result_writer w(2);
  w.begin_value()(std::string("value"));
  w.end_item();
  w.begin_value();
  w.fail({protocol::exception_kind::other, "my::error", "no"});
  w.end_item();
  const std::string body = w.finish();
  expect_every_cut_refused(body, [](std::string_view cut) {
    const protocol::decoded_result r = protocol::decode_result(cut, 2);
    for (std::string_view item : r.items) {
      const protocol::decoded_item d = protocol::decode_item(item);
      if (d.failed) continue;
      std::string s;
      ferry::input_archive ar(d.value);
      ar(s);
    }
  });
}

TEST(Protocol, WholeFailureRoundTrip) {
  const std::string body = protocol::encode_whole_failure(
      {protocol::exception_kind::serialization, "ferry::format_error", "bad bytes",
       ferry::serialization_error::phase::loading_task});
  const protocol::decoded_result r = protocol::decode_result(body, 5);
  ASSERT_TRUE(r.whole_failed);
  EXPECT_EQ(r.failure.what, "bad bytes");
  EXPECT_EQ(r.failure.phase, ferry::serialization_error::phase::loading_task);
  expect_every_cut_refused(body, [](std::string_view cut) { (void)protocol::decode_result(cut, 5); });
}

// ready and exit have empty bodies and start_failed raw text: what they
// carry is the header, sent and read by message_io.
TEST(Protocol, ControlMessagesRoundTripThroughASocket) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  ferry::detail::write_message(sv[0], nullptr, {protocol::kind::ready, 0, {}});
  ferry::detail::write_message(sv[0], nullptr, {protocol::kind::start_failed, 0, "no database"});
  ferry::detail::write_message(sv[0], nullptr, {protocol::kind::exit, 0, {}});
  ::close(sv[0]);
  ferry::detail::message_reader reader(1024);
  auto ready = reader.read_blocking(sv[1]);
  auto failed = reader.read_blocking(sv[1]);
  auto exit = reader.read_blocking(sv[1]);
  ::close(sv[1]);
  ASSERT_TRUE(ready && failed && exit);
  EXPECT_EQ(ready->header.type, protocol::kind::ready);
  EXPECT_EQ(ready->body->view(), "");
  EXPECT_EQ(failed->header.type, protocol::kind::start_failed);
  EXPECT_EQ(failed->body->view(), "no database");
  EXPECT_EQ(exit->header.type, protocol::kind::exit);
}
