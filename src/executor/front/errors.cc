// Copyright ferry authors.
#include <executor/errors.h>

#include <cstdio>
#include <utility>

namespace ferry {

task_error::task_error(std::string type_name, std::string message)
    : error("ferry: the task threw " + type_name + (message.empty() ? "" : ": " + message)),
      type_name_(std::move(type_name)),
      message_(std::move(message)) {}
task_error::~task_error() = default;

namespace {
// The first frames of a crash, one a line, for what().
std::string stack_text(const std::optional<crash_report>& crash) {
  if (!crash || crash->frames.empty()) return {};
  constexpr std::size_t shown = 8;
  std::string out = "; its stack:";
  for (std::size_t i = 0; i < crash->frames.size() && i < shown; ++i) {
    const crash_frame& f = crash->frames[i];
    char at[64];
    std::snprintf(at, sizeof at, "0x%llx", static_cast<unsigned long long>(f.offset));
    const std::size_t slash = f.module.rfind('/');
    const std::string file = slash == std::string::npos ? f.module : f.module.substr(slash + 1);
    out += "\n  #" + std::to_string(i) + " " + (f.function.empty() ? std::string("?") : f.function) + " in " +
           (file.empty() ? std::string("?") : file + "+" + at);
  }
  if (crash->frames.size() > shown) out += "\n  ... " + std::to_string(crash->frames.size() - shown) + " more";
  return out;
}

// A worker lost with an MPI agent has no pid that rank 0 knows: 0.
std::string worker_named(int pid) {
  return pid > 0 ? "the worker process " + std::to_string(pid) : std::string("the worker");
}
}  // namespace

worker_died_error::worker_died_error(int pid, std::string cause, std::optional<crash_report> crash)
    : error("ferry: " + worker_named(pid) + " running the task " + cause + stack_text(crash)),
      pid_(pid),
      cause_(cause),
      attempts_{std::move(cause)},
      crash_(std::move(crash)) {}

namespace {
std::string died_message(int pid, const std::string& cause, const std::vector<std::string>& earlier,
                         const std::string& name) {
  std::string m = "ferry: ";
  if (!name.empty()) m += "task '" + name + "': ";
  m += worker_named(pid) + " running the task " + cause;
  if (!earlier.empty()) {
    m += " (attempt " + std::to_string(earlier.size() + 1) + "; before it";
    for (std::size_t i = 0; i < earlier.size(); ++i)
      m += (i == 0 ? ": " : "; ") + std::to_string(i + 1) + ". " + earlier[i];
    m += ")";
  }
  return m;
}
}  // namespace

worker_died_error::worker_died_error(int pid, std::string cause, std::vector<std::string> earlier,
                                     const std::string& name, std::optional<crash_report> crash)
    : error(died_message(pid, cause, earlier, name) + stack_text(crash)),
      pid_(pid),
      cause_(cause),
      attempts_(std::move(earlier)),
      crash_(std::move(crash)) {
  attempts_.push_back(std::move(cause));
}
worker_died_error::~worker_died_error() = default;

worker_start_error::worker_start_error(const std::string& message) : error(message) {}
worker_start_error::~worker_start_error() = default;

task_timeout_error::task_timeout_error(const std::string& message) : error(message) {}
task_timeout_error::~task_timeout_error() = default;

cancelled_error::cancelled_error() : error("ferry: the task was cancelled before it started") {}
cancelled_error::cancelled_error(const std::string& message) : error(message) {}
cancelled_error::~cancelled_error() = default;

const char* to_string(serialization_error::phase where) noexcept {
  switch (where) {
    case serialization_error::phase::saving_task: return "saving the task in the pool";
    case serialization_error::phase::loading_task: return "loading the task in the worker";
    case serialization_error::phase::saving_result: return "saving the result in the worker";
    case serialization_error::phase::loading_result: return "loading the result in the pool";
  }
  return "unknown";
}

serialization_error::serialization_error(phase where, std::string type_name, std::string message)
    : error(std::string("ferry: serialization failed while ") + to_string(where) + ": " + type_name +
            (message.empty() ? "" : ": " + message)),
      where_(where),
      type_name_(std::move(type_name)),
      message_(std::move(message)) {}
serialization_error::~serialization_error() = default;

wait_timeout_error::wait_timeout_error(const std::string& message) : error(message) {}
wait_timeout_error::~wait_timeout_error() = default;

pool_shutdown_error::pool_shutdown_error(const std::string& message) : error(message) {}
pool_shutdown_error::~pool_shutdown_error() = default;

}  // namespace ferry
