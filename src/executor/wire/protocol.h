// Copyright ferry authors. Internal: the messages between a pool and its
// workers, and the one place that writes and reads their bytes
// (docs/api/wire_format.md, "Executor messages"; tests in
// tests/executor/protocol_test.cc). Adding a field to a message means
// changing its struct and its two functions here, and that page.
//
// Every message is a 64-byte header and a body. The body follows the header
// on the socket, or, when the header has flag_shared_memory, lives in a
// sealed memfd passed with the header (SCM_RIGHTS); message_io.h moves
// messages, this file says what they hold.
//
// Every message but the first (the hello, which carries the pool's key) is
// authenticated: the header's tag is HMAC-SHA256, under the pool's key, of
// the sender's direction byte, the header's first 32 bytes and the body (for
// a body in shared memory, the sealed file's device and inode numbers). The
// sequence number counts a direction's authenticated messages from 0, so a
// replayed, dropped or reordered message does not verify either
// (channel_auth.h).
#ifndef FERRY_SRC_EXECUTOR_WIRE_PROTOCOL_H_
#define FERRY_SRC_EXECUTOR_WIRE_PROTOCOL_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "internal/export.h"
#include <executor/errors.h>
#include <executor/internal/submit.h>
#include "executor/core/policy_snapshot.h"
#include <serialize/archive.h>
#include <serialize/error.h>
#include <serialize/function.h>
#include <serialize/internal/fd_list.h>
#include <serialize/internal/registry.h>
#include "serialize/code/payload_code.h"

namespace ferry::detail {

// A malformed or oversized message, or a broken connection.
class protocol_error : public error {
 public:
  explicit protocol_error(const std::string& message) : error("ferry: " + message) {}
};

// A message could not be sent because the peer had closed its end
// (EPIPE, ECONNRESET): for a worker, the pool is gone or has given it up.
class connection_lost : public protocol_error {
 public:
  using protocol_error::protocol_error;
};

namespace protocol {

// --- The header ---------------------------------------------------------

inline constexpr std::uint32_t magic = 0x57595246;  // "FRYW" little-endian

enum class kind : std::uint8_t {
  hello = 1,         // pool -> worker: its key and configuration
  ready = 2,         // worker -> pool: configured, initializer done; empty
  task = 3,          // pool -> worker: a function and its items' arguments
  result = 4,        // worker -> pool: the task's result items
  exit = 5,          // pool -> worker: finish and exit; empty
  start_failed = 6,  // worker -> pool: why it cannot start (raw text)
  // Tasks that submit tasks (ferry::this_task::pool()):
  submit = 7,         // worker -> pool: a nested task (encode_submit); id: the worker's number for it
  nested_result = 8,  // pool -> worker: a nested task's result (as a result's body); id: the worker's number
  waiting = 9,        // worker -> pool: task `id`, its innermost, waits for a nested task; empty
  resumed = 10,       // worker -> pool: task `id` waits no more; empty
  began = 11,         // worker -> pool: it starts task `id` while the task below it waits; empty
};

inline constexpr std::uint8_t flag_shared_memory = 1;
// With flag_shared_memory: the memfd is one the sender reuses
// (reusable_memory_linux.h), sealed against shrinking only; the body starts
// after its first page, whose control word the receiver clears when done.
inline constexpr std::uint8_t flag_reusable_memory = 8;
// On a result: the worker exits after it (it went over its memory limit).
inline constexpr std::uint8_t flag_retiring = 2;
// On a task: its result may pass shared buffers as descriptors. A pool whose
// results go on as bytes (an MPI agent's) leaves it off, and gets their
// bytes.
inline constexpr std::uint8_t flag_pass_buffers = 4;

// The most descriptors of ferry::shared_buffer values one message passes.
inline constexpr std::size_t max_attachments = 64;

struct header {
  std::uint32_t magic;
  kind type;
  std::uint8_t flags;
  std::uint16_t attachments;  // descriptors passed beside the body (shared buffers)
  std::uint64_t id;        // task id; 0 for others
  std::uint64_t length;    // body bytes
  std::uint64_t sequence;  // of this direction's authenticated messages
  unsigned char tag[32];   // HMAC-SHA256; zero on the hello
};
inline constexpr std::size_t header_size = sizeof(header);
static_assert(header_size == 64);
// What the tag covers of the header: everything before the tag.
inline constexpr std::size_t authenticated_header_bytes = offsetof(header, tag);

// A header for a body of `length` bytes; sequence and tag are left to
// channel_auth.
header make_header(kind type, std::uint64_t id, std::uint64_t length, std::uint8_t flags);
// The header at the start of `bytes` (header_size of them). Throws
// protocol_error for a bad magic number or a body above max_body.
header read_header(const char* bytes, std::uint64_t max_body);

// --- How a worker process is told it is one -----------------------------

// Environment variables of a spawned worker program: its sockets'
// descriptor numbers (it reads tasks on one and writes results on the
// other), and the pool's pid (a worker whose parent is already another
// process exits at once).
inline constexpr const char worker_fd_variable[] = "FERRY_WORKER_FD";
inline constexpr const char results_fd_variable[] = "FERRY_RESULTS_FD";
inline constexpr const char parent_pid_variable[] = "FERRY_PARENT_PID";
// The descriptors a spawned worker finds its sockets at: the one it reads
// tasks from, the one it writes results to.
inline constexpr int worker_fd = 3;
inline constexpr int results_fd = 5;
// The write end of a spawned worker's crash pipe (crash_report.h), and the
// variable naming it.
inline constexpr int crash_fd = 4;
inline constexpr const char crash_fd_variable[] = "FERRY_CRASH_FD";

// Exit statuses a worker reports through its wait status.
inline constexpr int served_status = 0;            // told to exit, or the pool is gone
inline constexpr int start_failed_status = 1;      // its initializer threw (said in start_failed)
inline constexpr int protocol_error_status = 2;    // the pool's side sent what no pool sends
inline constexpr int no_entry_point_status = 86;   // spawned, main lacks serve_if_worker
inline constexpr int task_memory_status = 87;      // the task alone passed max_worker_memory
inline constexpr int authentication_status = 88;   // a message from the pool failed authentication
inline constexpr int connection_closed_status = 89;  // a task closed the worker's socket to the pool

// --- hello ----------------------------------------------------------------
// The pool's key (key_size bytes, raw), then in the archive encoding:
// environment (map of strings), allowed module paths (vector of strings),
// module search directories (vector of strings), u64 max message size, u64 shared-memory threshold, u64 memory limit (0: none),
// u64 spin in microseconds (0: none),
// initializer (ferry::function<void()>).

inline constexpr std::size_t key_size = 32;

struct worker_config {
  std::map<std::string, std::string> env;  // set in the worker before the initializer
  policy_snapshot policy;
  std::uint64_t max_message_size = 0;
  std::uint64_t shared_memory_threshold = 0;
  std::uint64_t max_worker_memory = 0;
  std::uint64_t spin_us = 0;  // pool_options::spin
};

// The initializer as the hello carries it: a function record.
FERRY_INTERNAL_EXPORT std::string encode_initializer(const function<void()>& initializer);
// `initializer`: what encode_initializer returned (an MPI agent passes on
// the bytes rank 0 encoded, never decoding them itself).
std::string encode_hello(std::string_view key, const worker_config& config,
                         std::string_view initializer);

// Reads a hello in two steps, because its initializer may name a module that
// only the configuration's allowed modules let the worker load.
class hello_reader {
 public:
  // Throws protocol_error when the body is too short for the key, and
  // ferry::format_error when the configuration cannot be read.
  explicit hello_reader(std::string_view body);
  std::string_view key() const { return key_; }
  const worker_config& config() const { return config_; }
  // After the configuration's policy is in force. Throws like ferry::loads.
  function<void()> initializer();

 private:
  std::string_view key_;
  input_archive ar_;
  worker_config config_;
};

// --- task -----------------------------------------------------------------
// The reader of a task or a hello vouches for the modules it names
// (serialize/internal/identity.h): the message comes from the pool that
// started this worker, so its modules are the parent's own, loaded from
// their recorded paths after the build-id check, without the allow-list.
// A ferry::function of any signature, u32 count, then `count` argument
// tuples in its parameter order.

struct encoded_task {
  std::string body;
  bool names_main_program = false;  // code in the pool's executable, which plugin workers lack
  std::vector<module_file> modules;  // with list_modules: every module the body names
  fd_list attachments;  // with pass_buffers: the shared buffers' memory, in the body's order
};
// `list_modules`: fill encoded_task::modules (the MPI pool's ship_modules),
// which costs a copy of each path per task. `pass_buffers`: shared buffers
// go as descriptors in encoded_task::attachments, not as bytes (a process
// pool's tasks). Throws ferry::bad_function_call for an empty function,
// and whatever writing the function or the arguments throws.
// `into`: memory to encode into (its contents are dropped), such as a
// large body's kept for the next (executor/core/spare_body.h).
// What a task whose function is empty fails with, whatever carries it.
bad_function_call empty_function_error();

encoded_task encode_task(const task_writer& task, std::uint32_t count, bool list_modules = false,
                         bool pass_buffers = false, std::string into = {});

struct task_head {
  callable_ref<const callable_any> function;  // never null
  std::uint32_t count;
};
// Reads a task's function and count from `ar`, leaving it at the first
// item's arguments. Throws like ferry::loads, ferry::error for an empty
// function, and ferry::format_error for a count larger than the arguments'
// bytes could hold.
task_head read_task(input_archive& ar);

// --- submit -----------------------------------------------------------------
// A nested task, from a worker: i32 priority, u8 whether a timeout follows,
// u64 timeout in milliseconds, u32 name length and the name, then a task's
// body (as above; its shared buffers written as bytes).

std::string encode_submit(const task_settings& settings, std::string_view task_body);

struct decoded_submit {
  std::optional<std::chrono::milliseconds> timeout;
  std::string name;
  int priority = 0;
  std::string body;  // the task's
};
// Throws protocol_error for a body too short for its settings.
decoded_submit decode_submit(std::string_view body);

// --- exception records ------------------------------------------------------
// u8 exception_kind, the type name and what() as strings; for kind
// serialization, then u8 serialization_error::phase; for kind worker_died,
// then i32 pid and u8 whether a crash report follows, and if so i32
// signal, u64 fault address, u32 frames and each frame's u64 address,
// module, u64 offset and function; for the kinds that carry a
// std::error_code (system_error, filesystem_error, ios_failure), then i32
// the code's value, u8 its error_category_id and the text given to the
// constructor (what() less the code's message), and for filesystem_error
// u8 the number of paths (0 to 2) and each path. The one
// codec of an exception crossing between processes: what a task threw (a
// worker's result), and the error that failed a task as a whole on an MPI
// agent (mpi_messages.h, failure).

enum class exception_kind : std::uint8_t {
  other = 0,  // rethrown as ferry::task_error
  runtime_error,
  logic_error,
  invalid_argument,
  out_of_range,
  domain_error,
  length_error,
  range_error,
  overflow_error,
  underflow_error,
  bad_alloc,
  serialization,  // ferry::serialization_error
  // A pool's own errors, the whole failure of a task (never what a task
  // threw: a task's ferry::error travels as other, a task_error).
  worker_died,    // ferry::worker_died_error: `what` is its cause
  task_timeout,   // ferry::task_timeout_error
  worker_start,   // ferry::worker_start_error
  pool_shutdown,  // ferry::pool_shutdown_error
  not_shippable,  // ferry::not_shippable_error
  ferry_error,    // any other ferry::error, rethrown as ferry::error
  cancelled,      // ferry::cancelled_error (a task stopped by future::cancel(grace))
  // More standard types a task throws, each exactly (a subclass is other).
  system_error,         // std::system_error, with its error_code
  filesystem_error,     // std::filesystem::filesystem_error, with its code and paths
  ios_failure,          // std::ios_base::failure (libstdc++ throws a subclass of its own), with its code
  bad_optional_access,  // these four rethrown default-constructed: what() is
  bad_variant_access,   // the standard library's own text for the type
  bad_cast,
  bad_function_call,
};

// The standard error categories an error_code may travel with; a code of
// another category cannot be rebuilt in another process, and its
// exception travels as other.
enum class error_category_id : std::uint8_t { generic = 0, system, iostream, future };

struct exception_record {
  exception_kind kind = exception_kind::other;
  std::string type_name;
  std::string what;
  serialization_error::phase phase = serialization_error::phase::saving_task;  // serialization only
  std::int32_t pid = 0;                 // worker_died only
  std::optional<crash_report> crash{};  // worker_died only
  // system_error, filesystem_error and ios_failure only.
  std::int32_t code = 0;
  error_category_id category = error_category_id::generic;
  std::string text{};              // given to the constructor: "" for a code alone
  std::vector<std::string> paths{};  // filesystem_error only: at most 2
};

FERRY_INTERNAL_EXPORT void write_exception(output_archive& ar, const exception_record& record);
// Throws ferry::format_error for a truncated record, ferry::error for an
// unknown kind or phase.
FERRY_INTERNAL_EXPORT exception_record read_exception(input_archive& ar);

// --- result -----------------------------------------------------------------
// u8 whole: 0, then u32 count and `count` items, each a u64 length and that
// many bytes: u8 status (0: the value follows; 1: an exception record); or 1,
// then one exception record for the whole task (it could not be read).

std::string encode_whole_failure(const exception_record& record);

// Writes a result item by item.
class result_writer {
 public:
  // `attachments`: where shared buffers in the values pass their memory
  // (the task had flag_pass_buffers), or null: they go as bytes.
  explicit result_writer(std::uint32_t count, fd_list* attachments = nullptr);
  result_writer(const result_writer&) = delete;
  result_writer& operator=(const result_writer&) = delete;

  // Starts an item holding a value, which the caller writes to the archive.
  output_archive& begin_value();
  // Replaces whatever the current item holds with an exception record.
  void fail(const exception_record& record);
  void end_item();
  // Appends a copy of the previous item.
  void repeat_item();
  // The body; the writer is spent.
  std::string finish();

 private:
  std::string body_;
  output_archive ar_;
  std::size_t item_at_ = 0;  // where the current item's length is
  std::size_t last_at_ = 0;  // where the last finished item starts
};

struct decoded_result {
  bool whole_failed;
  exception_record failure;             // when whole_failed
  std::vector<std::string_view> items;  // views into the body, otherwise
};
// Throws ferry::format_error for a truncated body, ferry::error when it does
// not hold `expected` items.
decoded_result decode_result(std::string_view body, std::uint32_t expected);

struct decoded_item {
  bool failed;
  exception_record failure;  // when failed
  std::string_view value;    // otherwise
};
decoded_item decode_item(std::string_view item);

}  // namespace protocol
}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WIRE_PROTOCOL_H_
