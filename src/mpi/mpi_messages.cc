// Copyright ferry authors.
#include "mpi/mpi_messages.h"

#include <cstring>

#include <cereal/types/map.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include "executor/errors.h"
#include "serialize/archive.h"
#include "serialize/error.h"

namespace ferry::detail::mpi {
namespace {

enum class failure_kind : std::uint8_t {
  other = 0,
  worker_died,
  task_timeout,
  worker_start,
  pool_shutdown,
  serialization,
  not_shippable,
};

}  // namespace

std::string encode_config(const agent_config& c) {
  std::string out;
  output_archive ar(out);
  const pool_options& o = c.local;
  const bool has_timeout = o.task_timeout.has_value();
  ar(static_cast<std::uint64_t>(o.max_workers), static_cast<std::uint8_t>(o.start),
     static_cast<std::int64_t>(o.idle_timeout.count()), static_cast<std::uint64_t>(o.max_tasks_per_worker),
     has_timeout, static_cast<std::int64_t>(has_timeout ? o.task_timeout->count() : 0),
     static_cast<std::uint64_t>(o.max_worker_memory), o.env, o.unset_env,
     static_cast<std::uint64_t>(o.max_message_size), static_cast<std::uint64_t>(o.shared_memory_threshold),
     o.worker_program.string(), c.initializer, c.policy, static_cast<std::uint8_t>(o.worker_output),
     static_cast<std::int64_t>(o.spin.count()), c.relay_worker_events, c.ship_modules);
  return out;
}

agent_config decode_config(std::string_view body) {
  agent_config c;
  pool_options& o = c.local;
  input_archive ar(body);
  std::uint64_t max_workers, max_tasks, memory, max_message, threshold;
  std::uint8_t start;
  std::int64_t idle_ms, timeout_ms;
  bool has_timeout;
  std::string program;
  std::uint8_t output = 0;
  std::int64_t spin_us = 0;
  ar(max_workers, start, idle_ms, max_tasks, has_timeout, timeout_ms, memory, o.env, o.unset_env,
     max_message, threshold, program, c.initializer, c.policy, output, spin_us, c.relay_worker_events,
     c.ship_modules);
  o.spin = std::chrono::microseconds(spin_us);
  if (output > static_cast<std::uint8_t>(output_mode::prefix))
    throw error("ferry: an MPI agent's configuration names an unknown output mode " + std::to_string(output));
  o.worker_output = static_cast<output_mode>(output);
  if (ar.remaining() != 0) throw_trailing_bytes(ar.offset(), ar.remaining());
  o.max_workers = max_workers;
  o.start = static_cast<start_method>(start);
  o.idle_timeout = std::chrono::milliseconds(idle_ms);
  o.max_tasks_per_worker = max_tasks;
  if (has_timeout) o.task_timeout = std::chrono::milliseconds(timeout_ms);
  o.max_worker_memory = memory;
  o.max_message_size = max_message;
  o.shared_memory_threshold = threshold;
  o.worker_program = program;
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
  failure_kind kind = failure_kind::other;
  std::string what, type_name, message;
  std::int32_t pid = 0;
  std::uint8_t phase = 0;
  std::optional<crash_report> crash;
  try {
    std::rethrow_exception(error);
  } catch (const worker_died_error& e) {
    kind = failure_kind::worker_died;
    pid = e.pid();
    what = e.cause();
    crash = e.crash();
  } catch (const task_timeout_error& e) {
    kind = failure_kind::task_timeout;
    what = e.what();
  } catch (const worker_start_error& e) {
    kind = failure_kind::worker_start;
    what = e.what();
  } catch (const pool_shutdown_error& e) {
    kind = failure_kind::pool_shutdown;
    what = e.what();
  } catch (const serialization_error& e) {
    kind = failure_kind::serialization;
    phase = static_cast<std::uint8_t>(e.where());
    type_name = e.type_name();
    message = e.message();
  } catch (const not_shippable_error& e) {
    kind = failure_kind::not_shippable;
    what = e.what();
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "an exception of unknown type";
  }
  std::string out;
  output_archive ar(out);
  ar(static_cast<std::uint8_t>(kind), what, pid, phase, type_name, message);
  // A worker's crash report, if any: its signal, address and frames.
  ar(static_cast<std::uint8_t>(crash ? 1 : 0));
  if (crash) {
    ar(static_cast<std::int32_t>(crash->signal), static_cast<std::uint64_t>(crash->fault_address),
       static_cast<std::uint32_t>(crash->frames.size()));
    for (const crash_frame& f : crash->frames)
      ar(static_cast<std::uint64_t>(f.address), f.module, f.offset, f.function);
  }
  return out;
}

std::exception_ptr decode_failure(std::string_view body, const std::string& where) {
  std::uint8_t kind;
  std::string what, type_name, message;
  std::int32_t pid;
  std::uint8_t phase;
  input_archive ar(body);
  ar(kind, what, pid, phase, type_name, message);
  std::uint8_t has_crash = 0;
  ar(has_crash);
  std::optional<crash_report> crash;
  if (has_crash != 0) {
    crash.emplace();
    std::int32_t signal = 0;
    std::uint64_t address = 0;
    std::uint32_t frames = 0;
    ar(signal, address, frames);
    crash->signal = signal;
    crash->fault_address = static_cast<std::uintptr_t>(address);
    for (std::uint32_t i = 0; i < frames; ++i) {  // each read is bounds-checked: no allocation up front
      crash_frame f;
      std::uint64_t frame_address = 0;
      ar(frame_address, f.module, f.offset, f.function);
      f.address = static_cast<std::uintptr_t>(frame_address);
      crash->frames.push_back(std::move(f));
    }
  }
  const std::string at = " (" + where + ")";
  switch (static_cast<failure_kind>(kind)) {
    case failure_kind::worker_died:
      return std::make_exception_ptr(worker_died_error(pid, what + at, std::move(crash)));
    case failure_kind::task_timeout: return std::make_exception_ptr(task_timeout_error(what + at));
    case failure_kind::worker_start: return std::make_exception_ptr(worker_start_error(what + at));
    case failure_kind::pool_shutdown: return std::make_exception_ptr(pool_shutdown_error(what + at));
    case failure_kind::serialization:
      return std::make_exception_ptr(serialization_error(
          static_cast<serialization_error::phase>(phase), type_name, message + at));
    case failure_kind::not_shippable: return std::make_exception_ptr(not_shippable_error(what + at));
    case failure_kind::other: break;
  }
  return std::make_exception_ptr(error(what + at));
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

std::string with_settings(const task_settings& s, std::string_view body) {
  std::string out;
  output_archive ar(out);
  ar(s.timeout.has_value(), static_cast<std::int64_t>(s.timeout ? s.timeout->count() : 0),
     static_cast<std::uint64_t>(s.name.size()));
  ar.saveBinary(s.name.data(), s.name.size());
  out.append(body);
  return out;
}

settled_body split_settings(std::string_view bytes) {
  input_archive ar(bytes);
  bool has_timeout = false;
  std::int64_t ms = 0;
  ar(has_timeout, ms);
  const std::uint64_t name_length = ar.load_count();  // checked against the bytes left
  settled_body out;
  if (has_timeout) out.settings.timeout = std::chrono::milliseconds(ms);
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

}  // namespace ferry::detail::mpi
