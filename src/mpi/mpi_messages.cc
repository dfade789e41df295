// Copyright ferry authors.
#include "mpi/mpi_messages.h"

#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <tuple>
#include <type_traits>

#include <cereal/types/map.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <executor/errors.h>
#include "executor/wire/protocol.h"
#include "executor/wire/task_exception.h"
#include "mpi/agent_config_fields.h"
#include <serialize/archive.h>
#include <serialize/error.h>

namespace ferry::detail::mpi {
namespace {

// How each type of a sent field travels; take() is put()'s inverse and
// refuses, with ferry::format_error, what put() never writes.
template <class E>
constexpr E last_enumerator = E{};  // specialized for each enum sent: a new one must say its last
template <>
constexpr start_method last_enumerator<start_method> = start_method::plugin;
template <>
constexpr output_mode last_enumerator<output_mode> = output_mode::prefix;

template <class T>
struct is_duration : std::false_type {};
template <class R, class P>
struct is_duration<std::chrono::duration<R, P>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
void put(output_archive& ar, const T& v) {
  if constexpr (std::is_enum_v<T>) {
    static_assert(last_enumerator<T> != T{}, "say the last enumerator of this enum: last_enumerator");
    ar(static_cast<std::uint8_t>(v));
  } else if constexpr (is_duration<T>::value) {
    ar(static_cast<std::int64_t>(v.count()));
  } else if constexpr (is_optional<T>::value) {
    ar(v.has_value());
    put(ar, v.value_or(typename T::value_type{}));
  } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
    ar(v.string());
  } else if constexpr (std::is_integral_v<T>) {
    ar(static_cast<std::uint64_t>(v));
  } else {
    ar(v);  // strings and their containers, through cereal
  }
}

template <class T>
void take(input_archive& ar, T& v) {
  if constexpr (std::is_enum_v<T>) {
    const std::size_t at = ar.offset();
    std::uint8_t raw = 0;
    ar(raw);
    if (raw > static_cast<std::uint8_t>(last_enumerator<T>))
      throw format_error(at, "an MPI agent's configuration has an unknown enumerator " + std::to_string(raw));
    v = static_cast<T>(raw);
  } else if constexpr (is_duration<T>::value) {
    std::int64_t count = 0;
    ar(count);
    v = T(count);
  } else if constexpr (is_optional<T>::value) {
    bool has = false;
    ar(has);
    typename T::value_type value{};
    take(ar, value);
    if (has) v = value; else v.reset();
  } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
    std::string s;
    ar(s);
    v = s;
  } else if constexpr (std::is_integral_v<T>) {
    std::uint64_t n = 0;
    ar(n);
    v = static_cast<T>(n);
  } else {
    ar(v);
  }
}

}  // namespace

std::string encode_config(const agent_config& c) {
  std::string out;
  output_archive ar(out);
  std::apply([&](auto... field) { (put(ar, c.local.*field), ...); }, sent_fields);
  ar(c.initializer, c.policy, c.relay_worker_events, c.ship_modules);
  put(ar, c.heartbeat);
  return out;
}

agent_config decode_config(std::string_view body) {
  agent_config c;
  input_archive ar(body);
  std::apply([&](auto... field) { (take(ar, c.local.*field), ...); }, sent_fields);
  ar(c.initializer, c.policy, c.relay_worker_events, c.ship_modules);
  const std::size_t at = ar.offset();
  take(ar, c.heartbeat);
  if (c.heartbeat.count() <= 0)
    throw format_error(at, "an MPI agent's configuration asks for a heartbeat every " +
                               std::to_string(c.heartbeat.count()) + " ms; it must be more than 0");
  if (ar.remaining() != 0) throw_trailing_bytes(ar.offset(), ar.remaining());
  return c;
}

std::string encode_hello(const hello& h) {
  std::string out;
  output_archive ar(out);
  ar(h.host, h.workers);
  return out;
}

hello decode_hello(std::string_view body) {
  hello h;
  input_archive ar(body);
  ar(h.host, h.workers);
  if (ar.remaining() != 0) throw_trailing_bytes(ar.offset(), ar.remaining());
  return h;
}

std::string encode_failure(std::exception_ptr error) {
  std::string out;
  output_archive ar(out);
  protocol::write_exception(ar, record_of(error));
  return out;
}

std::exception_ptr decode_failure(std::string_view body, const std::string& where) {
  input_archive ar(body);
  const protocol::exception_record record = protocol::read_exception(ar);
  if (ar.remaining() != 0) throw_trailing_bytes(ar.offset(), ar.remaining());
  return exception_of(record, " (" + where + ")");
}

void append_to_batch(std::string& batch, std::uint64_t id, std::uint8_t kind, std::string_view body) {
  const std::uint64_t length = body.size();
  batch.append(reinterpret_cast<const char*>(&id), 8);
  batch.push_back(static_cast<char>(kind));
  batch.append(reinterpret_cast<const char*>(&length), 8);
  batch.append(body);
}

std::vector<batch_entry> decode_batch(std::string_view batch) {
  std::vector<batch_entry> out;
  std::size_t at = 0;
  while (at < batch.size()) {
    if (batch.size() - at < 17) throw format_error(at, "a batch entry's head is cut short");
    batch_entry e{};
    std::uint64_t length;
    std::memcpy(&e.id, batch.data() + at, 8);
    e.kind = static_cast<std::uint8_t>(batch[at + 8]);
    std::memcpy(&length, batch.data() + at + 9, 8);
    at += 17;
    if (length > batch.size() - at) throw format_error(at, "a batch entry is longer than the bytes left");
    e.body = batch.substr(at, length);
    at += length;
    out.push_back(e);
  }
  return out;
}

std::string settings_prefix(const task_settings& s) {
  std::string out;
  output_archive ar(out);
  ar(s.timeout.has_value(), static_cast<std::int64_t>(s.timeout ? s.timeout->count() : 0),
     static_cast<std::int32_t>(s.priority), static_cast<std::uint8_t>(s.actor.what), s.actor.id,
     static_cast<std::uint32_t>(s.actor.max_restarts), static_cast<std::uint64_t>(s.name.size()));
  ar.saveBinary(s.name.data(), s.name.size());
  return out;
}

settled_body split_settings(std::string_view bytes) {
  input_archive ar(bytes);
  bool has_timeout = false;
  std::int64_t ms = 0;
  std::int32_t priority = 0;
  std::uint8_t actor_part = 0;
  std::uint64_t actor = 0;
  std::uint32_t restarts = 0;
  ar(has_timeout, ms, priority, actor_part, actor, restarts);
  if (actor_part > static_cast<std::uint8_t>(actor_route::part::drop))
    throw format_error(ar.offset(), "a task's settings name an unknown part of an actor");
  const std::uint64_t name_length = ar.load_count();  // checked against the bytes left
  settled_body out;
  if (has_timeout) out.settings.timeout = std::chrono::milliseconds(ms);
  out.settings.priority = priority;
  out.settings.actor = {actor, static_cast<actor_route::part>(actor_part), restarts};
  out.settings.name = bytes.substr(ar.offset(), name_length);
  ar.skip(name_length);
  out.body = bytes.substr(ar.offset());
  return out;
}

void append_worker_event(std::string& batch, const worker_event& e) {
  output_archive ar(batch);
  ar(static_cast<std::uint8_t>(e.what), static_cast<std::int32_t>(e.pid), std::string(e.why));
}

std::vector<worker_news> decode_worker_events(std::string_view body) {
  std::vector<worker_news> out;
  input_archive ar(body);
  while (ar.remaining() != 0) {
    std::uint8_t what = 0;
    worker_news n{};
    ar(what, n.pid, n.why);
    if (what > static_cast<std::uint8_t>(worker_event::kind::recycled))
      throw format_error(ar.offset(), "a worker event of unknown kind " + std::to_string(what));
    n.what = static_cast<worker_event::kind>(what);
    out.push_back(std::move(n));
  }
  return out;
}

std::string encode_stop(bool kill_running) {
  return std::string(1, kill_running ? '\1' : '\0');
}

bool decode_stop(std::string_view body) { return !body.empty() && body[0] != 0; }

std::string encode_stop_task(std::chrono::milliseconds grace) {
  std::string out;
  output_archive ar(out);
  ar(static_cast<std::int64_t>(grace.count()));
  return out;
}

std::chrono::milliseconds decode_stop_task(std::string_view body) {
  input_archive ar(body);
  std::int64_t ms = 0;
  ar(ms);
  if (ar.remaining() != 0) throw_trailing_bytes(ar.offset(), ar.remaining());
  return std::chrono::milliseconds(std::max<std::int64_t>(ms, 0));
}

}  // namespace ferry::detail::mpi
