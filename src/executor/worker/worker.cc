// Copyright ferry authors.
#include <executor/worker.h>

#include <unistd.h>

#include <cstdlib>

#include "serialize/code/payload_code.h"
#include "executor/pool/process_linux.h"
#include "executor/wire/protocol.h"
#include "executor/worker/worker_loop.h"

namespace ferry {
namespace detail {
namespace {

// Refuses to let a spawned program that cannot serve run its main logic.
// Runs during the static initialization of this library, before main: it
// can only check that the executable calls serve_if_worker at all, itself
// or through serve_if_mpi_agent (executor/mpi_pool.h), which calls it first.
struct entry_point_check {
  entry_point_check() {
    if (std::getenv(protocol::worker_fd_variable) == nullptr) return;
    if (program_imports("_ZN5ferry15serve_if_workerEiPPc")) return;
    if (program_imports("_ZN5ferry18serve_if_mpi_agentEiPPc")) return;
    static constexpr char message[] =
        "ferry: this program was started as a pool worker (start_method::spawn), but its "
        "main() does not call ferry::serve_if_worker(argc, argv). Add that call as the first "
        "statement of main, or use start_method::fork or start_method::plugin.\n";
    [[maybe_unused]] const ssize_t n = ::write(2, message, sizeof message - 1);
    ::_exit(protocol::no_entry_point_status);
  }
} check_entry_point;

}  // namespace
}  // namespace detail

void serve_if_worker(int /*argc*/, char** /*argv*/) {
  namespace protocol = detail::protocol;
  const char* fd_text = std::getenv(protocol::worker_fd_variable);
  if (fd_text == nullptr) return;
  const int fd = std::atoi(fd_text);
  const char* parent_text = std::getenv(protocol::parent_pid_variable);
  const pid_t parent = parent_text != nullptr ? std::atoi(parent_text) : 0;
  // Children of the task's own (a subprocess of this program) are not workers.
  const char* crash_text = std::getenv(protocol::crash_fd_variable);
  const int crash_fd = crash_text != nullptr ? std::atoi(crash_text) : -1;
  const char* results_text = std::getenv(protocol::results_fd_variable);
  const int results_fd = results_text != nullptr ? std::atoi(results_text) : -1;
  ::unsetenv(protocol::worker_fd_variable);
  ::unsetenv(protocol::results_fd_variable);
  ::unsetenv(protocol::parent_pid_variable);
  ::unsetenv(protocol::crash_fd_variable);
  detail::die_with_parent();
  if (parent != 0 && ::getppid() != parent) std::_Exit(1);  // the pool died before we got here
  detail::serve(fd, results_fd, crash_fd);
}

bool is_worker_process() noexcept { return detail::serving(); }

}  // namespace ferry
