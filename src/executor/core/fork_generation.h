// Copyright ferry authors. Internal: which process, of a program that forks,
// made a pool or a future. fork() copies a pool's objects into the child
// but not its manager thread, its workers or the threads that would finish
// its futures: a task submitted there, or a future waited for there, would
// wait forever. What a pool or future records at its creation tells the
// child, at one load, that it is not where they live.
//
// Thread-safety: any thread.
#ifndef FERRY_SRC_EXECUTOR_CORE_FORK_GENERATION_H_
#define FERRY_SRC_EXECUTOR_CORE_FORK_GENERATION_H_

#include <cstdint>

#include "internal/export.h"

namespace ferry::detail {

// How many fork()s this process's ancestry has been through since ferry's
// first use in it: the same number in one process, a higher one in a
// forked child.
FERRY_INTERNAL_EXPORT std::uint64_t fork_generation();

// The error for a pool or future used in a process forked from its own:
// `what` says which: "a pool" or "a future of a pool".
[[noreturn]] FERRY_INTERNAL_EXPORT void throw_used_after_fork(const char* what);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_FORK_GENERATION_H_
