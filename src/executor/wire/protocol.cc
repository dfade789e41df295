// Copyright ferry authors.
#include "executor/wire/protocol.h"

#include <cereal/types/map.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "serialize/code/payload_code.h"

namespace ferry::detail::protocol {

header make_header(kind type, std::uint64_t id, std::uint64_t length, std::uint8_t flags) {
  return header{magic, type, flags, 0, id, length, 0, {}};
}

header read_header(const char* bytes, std::uint64_t max_body) {
  header h;
  std::memcpy(&h, bytes, header_size);
  if (h.magic != magic) throw protocol_error("message with a bad magic number");
  if (h.length > max_body)
    throw protocol_error("message of " + std::to_string(h.length) +
                         " bytes is larger than the maximum of " + std::to_string(max_body));
  if (h.attachments > max_attachments)
    throw protocol_error("message passes " + std::to_string(h.attachments) +
                         " descriptors, more than the maximum of " + std::to_string(max_attachments));
  return h;
}

// --- submit -----------------------------------------------------------------

namespace {

template <class T>
void put(std::string& out, T v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  out.append(bytes, sizeof v);
}

template <class T>
T take(std::string_view& in) {
  if (in.size() < sizeof(T)) throw protocol_error("a submit message too short for its settings");
  T v;
  std::memcpy(&v, in.data(), sizeof v);
  in.remove_prefix(sizeof v);
  return v;
}

}  // namespace

std::string encode_submit(const task_settings& settings, std::string_view task_body) {
  std::string out;
  out.reserve(17 + settings.name.size() + task_body.size());
  put<std::int32_t>(out, settings.priority);
  put<std::uint8_t>(out, settings.timeout ? 1 : 0);
  put<std::uint64_t>(out, settings.timeout ? static_cast<std::uint64_t>(std::max<std::int64_t>(settings.timeout->count(), 0)) : 0);
  put<std::uint32_t>(out, static_cast<std::uint32_t>(settings.name.size()));
  out.append(settings.name);
  out.append(task_body);
  return out;
}

decoded_submit decode_submit(std::string_view body) {
  decoded_submit d;
  d.priority = take<std::int32_t>(body);
  const auto has_timeout = take<std::uint8_t>(body);
  const auto timeout = take<std::uint64_t>(body);
  if (has_timeout > 1) throw protocol_error("a submit message whose timeout flag is neither 0 nor 1");
  if (has_timeout == 1)
    d.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(std::min<std::uint64_t>(timeout, INT64_MAX)));
  const auto name_size = take<std::uint32_t>(body);
  if (name_size > body.size()) throw protocol_error("a submit message too short for its task's name");
  d.name = std::string(body.substr(0, name_size));
  d.body = std::string(body.substr(name_size));
  return d;
}

// --- hello ----------------------------------------------------------------

std::string encode_initializer(const function<void()>& initializer) {
  std::string record;
  output_archive ar(record);
  ar(initializer);
  return record;
}

std::string encode_hello(std::string_view key, const worker_config& config,
                         std::string_view initializer) {
  std::string body(key);
  output_archive ar(body);
  ar(config.env, config.policy, config.max_message_size,
     config.shared_memory_threshold, config.max_worker_memory, config.spin_us);
  ar.saveBinary(initializer.data(), initializer.size());
  return body;
}

namespace {
std::string_view after_key(std::string_view body) {
  if (body.size() < key_size)
    throw protocol_error("a hello of " + std::to_string(body.size()) +
                         " bytes is too short for the pool's key");
  return body.substr(key_size);
}
}  // namespace

hello_reader::hello_reader(std::string_view body)
    : key_(body.substr(0, key_size)), ar_(after_key(body), key_size) {
  ar_(config_.env, config_.policy, config_.max_message_size,
      config_.shared_memory_threshold, config_.max_worker_memory, config_.spin_us);
}

function<void()> hello_reader::initializer() {
  // The hello is the first message on the socket the parent handed this
  // worker when it started it: the initializer's modules are the parent's.
  vouch_for_modules(ar_);
  function<void()> f;
  ar_(f);
  return f;
}

// --- task -----------------------------------------------------------------

bad_function_call empty_function_error() {
  return bad_function_call(
      "ferry: the task's function is empty (a default-constructed ferry::function, or one made from a "
      "null function pointer): there is nothing to run, and nothing was sent");
}

encoded_task encode_task(const task_writer& task, std::uint32_t count, bool list_modules,
                         bool pass_buffers, std::string into) {
  encoded_task out;
  out.body = std::move(into);
  out.body.clear();
  // Room for a small task's function record (its module's path) and
  // arguments at once: growing the string costs more than the writing, and
  // how often it grew depended on the length of the path.
  out.body.reserve(256);
  output_archive ar(out.body);
  if (pass_buffers) attach_to(ar, &out.attachments);
  const std::size_t function_at = out.body.size();
  task.write_function(ar);
  // An empty ferry::function (or one made from a null function pointer) is
  // a record of one tag byte: refused here, so that the future says what
  // was wrong without a worker's round trip, and the same for every pool.
  if (out.body.size() == function_at + 1 &&
      static_cast<std::uint8_t>(out.body[function_at]) == static_cast<std::uint8_t>(wire::function_tag::empty))
    throw empty_function_error();
  ar(count);
  task.write_arguments(ar);
  out.names_main_program = names_main_program(ar);
  if (list_modules) out.modules = modules_named(ar);
  return out;
}

task_head read_task(input_archive& ar) {
  task_head t{load_any_function(ar), 0};
  const std::size_t count_at = ar.offset();
  ar(t.count);
  if (t.function == nullptr) throw error("ferry: the task's function is empty");
  // Each item's arguments take at least a byte, but for functions without
  // parameters; a count beyond that is a lie that would cost time and
  // memory in proportion to it.
  if (t.count > ar.remaining() + 1)
    throw format_error(count_at, "the task announces " + std::to_string(t.count) +
                                     " items but has only " + std::to_string(ar.remaining()) +
                                     " bytes of arguments");
  return t;
}

// --- exception records ------------------------------------------------------

namespace {

bool carries_error_code(exception_kind kind) {
  return kind == exception_kind::system_error || kind == exception_kind::filesystem_error ||
         kind == exception_kind::ios_failure;
}

}  // namespace

void write_exception(output_archive& ar, const exception_record& record) {
  ar(static_cast<std::uint8_t>(record.kind), record.type_name, record.what);
  if (record.kind == exception_kind::serialization) ar(static_cast<std::uint8_t>(record.phase));
  if (carries_error_code(record.kind)) ar(record.code, static_cast<std::uint8_t>(record.category), record.text);
  if (record.kind == exception_kind::filesystem_error) {
    ar(static_cast<std::uint8_t>(record.paths.size()));
    for (const std::string& p : record.paths) ar(p);
  }
  if (record.kind != exception_kind::worker_died) return;
  ar(record.pid, static_cast<std::uint8_t>(record.crash ? 1 : 0));
  if (!record.crash) return;
  const crash_report& crash = *record.crash;
  ar(static_cast<std::int32_t>(crash.signal), static_cast<std::uint64_t>(crash.fault_address),
     static_cast<std::uint32_t>(crash.frames.size()));
  for (const crash_frame& f : crash.frames) ar(static_cast<std::uint64_t>(f.address), f.module, f.offset, f.function);
}

exception_record read_exception(input_archive& ar) {
  exception_record r;
  std::uint8_t kind;
  ar(kind, r.type_name, r.what);
  if (kind > static_cast<std::uint8_t>(exception_kind::bad_function_call))
    throw error("ferry: a result names an unknown exception kind " + std::to_string(kind));
  r.kind = static_cast<exception_kind>(kind);
  if (r.kind == exception_kind::serialization) {
    std::uint8_t phase;
    ar(phase);
    if (phase > static_cast<std::uint8_t>(serialization_error::phase::loading_result))
      throw error("ferry: a result names an unknown serialization phase");
    r.phase = static_cast<serialization_error::phase>(phase);
  }
  if (carries_error_code(r.kind)) {
    std::uint8_t category = 0;
    ar(r.code, category);
    if (category > static_cast<std::uint8_t>(error_category_id::future))
      throw error("ferry: a result names an unknown error category " + std::to_string(category));
    r.category = static_cast<error_category_id>(category);
    ar(r.text);
  }
  if (r.kind == exception_kind::filesystem_error) {
    std::uint8_t paths = 0;
    ar(paths);
    if (paths > 2) throw error("ferry: a result's filesystem_error names " + std::to_string(paths) + " paths");
    r.paths.resize(paths);
    for (std::string& p : r.paths) ar(p);
  }
  if (r.kind != exception_kind::worker_died) return r;
  std::uint8_t has_crash = 0;
  ar(r.pid, has_crash);
  if (has_crash == 0) return r;
  crash_report& crash = r.crash.emplace();
  std::int32_t signal = 0;
  std::uint64_t address = 0;
  std::uint32_t frames = 0;
  ar(signal, address, frames);
  crash.signal = signal;
  crash.fault_address = static_cast<std::uintptr_t>(address);
  for (std::uint32_t i = 0; i < frames; ++i) {  // each read is bounds-checked: no allocation up front
    crash_frame f;
    std::uint64_t frame_address = 0;
    ar(frame_address, f.module, f.offset, f.function);
    f.address = static_cast<std::uintptr_t>(frame_address);
    crash.frames.push_back(std::move(f));
  }
  return r;
}

// --- result -----------------------------------------------------------------

std::string encode_whole_failure(const exception_record& record) {
  std::string body(1, '\1');
  output_archive ar(body);
  write_exception(ar, record);
  return body;
}

result_writer::result_writer(std::uint32_t count, fd_list* attachments) : body_(1, '\0'), ar_(body_) {
  attach_to(ar_, attachments);
  ar_(count);
}

output_archive& result_writer::begin_value() {
  item_at_ = body_.size();
  ar_(std::uint64_t{0}, std::uint8_t{0});  // the length, patched by end_item; status 0
  return ar_;
}

void result_writer::fail(const exception_record& record) {
  body_.resize(item_at_ + sizeof(std::uint64_t));  // drop whatever part of the value was written
  ar_(std::uint8_t{1});
  write_exception(ar_, record);
}

void result_writer::end_item() {
  const std::uint64_t length = body_.size() - item_at_ - sizeof length;
  std::memcpy(body_.data() + item_at_, &length, sizeof length);
  last_at_ = item_at_;
}

void result_writer::repeat_item() {
  const std::string last = body_.substr(last_at_);
  last_at_ = body_.size();
  body_ += last;
}

std::string result_writer::finish() { return std::move(body_); }

namespace {

// The u8 before a value or an exception record: whether the record follows
// (it is read into `failure`).
bool read_failure(input_archive& ar, exception_record& failure) {
  std::uint8_t failed;
  ar(failed);
  if (failed == 0) return false;
  failure = read_exception(ar);
  return true;
}

}  // namespace

decoded_result decode_result(std::string_view body, std::uint32_t expected) {
  input_archive ar(body);
  decoded_result r{};
  r.whole_failed = read_failure(ar, r.failure);
  if (r.whole_failed) return r;
  std::uint32_t count;
  ar(count);
  if (count != expected)
    throw error("ferry: a result holds " + std::to_string(count) + " items, " +
                std::to_string(expected) + " were sent");
  r.items.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t length = ar.load_count();
    r.items.push_back(body.substr(ar.offset(), length));
    ar.skip(length);
  }
  return r;
}

decoded_item decode_item(std::string_view item) {
  input_archive ar(item);
  decoded_item r{};
  r.failed = read_failure(ar, r.failure);
  if (!r.failed) r.value = item.substr(ar.offset());
  return r;
}

}  // namespace ferry::detail::protocol
