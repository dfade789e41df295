// Copyright ferry authors. Internal: the Linux process calls of the executor
// (pidfd, prctl, /proc), each behind a name that says what it is for.
#ifndef FERRY_SRC_EXECUTOR_POOL_PROCESS_LINUX_H_
#define FERRY_SRC_EXECUTOR_POOL_PROCESS_LINUX_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace ferry::detail {

// A descriptor that becomes readable when process `pid` (a child of ours)
// exits: how the manager learns of a death without SIGCHLD or waitpid(-1).
// Where pidfd_open is missing (kernels before 5.3; valgrind 3.19, which
// does not know the call), a duplicate of `child_pipe`, the read end of a
// pipe whose write end only the child holds: it ends when the child's
// descriptors close, so a grandchild the worker forks without exec delays
// it. -1 with errno set on failure.
int open_exit_fd(pid_t pid, int child_pipe);

// Waits for child `pid` and returns its wait status: waitpid's or, where
// something else in this process reaped it first (SIGCHLD set to SIG_IGN,
// or a handler calling waitpid(-1)), the kernel's record of it, read
// through its pidfd `exit_fd` (Linux 6.15 and later); nullopt when
// neither has it.
std::optional<int> reap_child(pid_t pid, int exit_fd);

// SIGKILLs child `pid`: through its pidfd where `exit_fd` is one, so that
// a pid that something else reaped, and the kernel gave to another
// process, is never signalled; else with kill().
void kill_child(pid_t pid, int exit_fd);

// The program a spawned worker runs: this process's executable, named by
// /proc/self/exe, which stays this build even if the file is replaced;
// under valgrind, which refuses to run /proc/self/exe, the file's path.
std::string spawn_program_path();

// Asks the kernel to SIGKILL this process when the thread that started it
// ends: a worker dies with its pool's manager thread.
void die_with_parent();

// Makes this worker process outlive SIGINT, which Ctrl-C at a terminal
// sends to the whole foreground process group, the pool's workers with the
// program: the program decides, through its own handler or by dying, which
// ends its workers (die_with_parent). A handler that does nothing, not
// SIG_IGN, so that programs a task runs start with SIGINT's default action
// (exec resets a handled signal, keeps an ignored one) and still end on
// Ctrl-C; it replaces whatever handler a forked worker inherited from the
// program. System calls it interrupts restart where they can (SA_RESTART).
void outlive_terminal_interrupt();

// Unblocks every signal in the calling thread. A worker is started by the
// pool's manager thread and would keep its mask, which is the mask of the
// program's thread that made the pool: a program taking its signals
// through signalfd or sigwait blocks them everywhere, and then its
// workers, and every program their tasks ran, could not be ended by
// SIGTERM or Ctrl-C, nor report a crash through a blocked SIGSEGV.
void unblock_all_signals();

// This process's resident memory, in bytes (/proc/self/statm); 0 if unknown.
std::uint64_t resident_bytes();

// What to add to the message of an error whose errno is `err`, so that it
// says which limit was reached and what to do: for EMFILE, this process's
// RLIMIT_NOFILE and how to raise it; for ENFILE, the system's limit; else
// nothing. Every pool, and each of its workers, holds descriptors in the
// pool's process, so a program that makes many of them meets the limit.
std::string descriptor_shortage(int err);

// Marks fd close-on-exec, so that programs this process runs do not inherit
// it. Returns false (errno set) on failure.
bool set_close_on_exec(int fd);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_PROCESS_LINUX_H_
