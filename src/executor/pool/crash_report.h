// Copyright ferry authors. Internal: what a worker that dies by a signal
// tells its pool first, and how the pool reads it.
//
// In the worker, install_crash_reporter() sets handlers for the signals of
// a crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) on an alternate stack.
// A handler, async-signal-safely, writes one record to the crash pipe the
// pool gave the worker: the signal, the faulting address and instruction,
// the crashing thread's stack (Boost.Stacktrace's safe_dump_to) and the
// worker's module map as note_loaded_modules() last took it (outside the
// handler, before each task); then it lets the signal kill the worker.
// The pool reads the pipe once the worker is reaped, and symbolizes the
// frames with the modules' ELF symbols (parse_crash_record).
//
//   record: u32 magic "FCR1", i32 signal, i32 si_code, u64 fault address,
//           u64 instruction pointer, u32 frames, u64 x frames,
//           u32 module bytes, then per module: u64 start, u64 end,
//           u64 load base, u16 path length, path
//
// Thread-safety: install_crash_reporter and note_loaded_modules are called
// by the worker's serving thread; the handler may run on any thread.
#ifndef FERRY_SRC_EXECUTOR_POOL_CRASH_REPORT_H_
#define FERRY_SRC_EXECUTOR_POOL_CRASH_REPORT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <executor/errors.h>

namespace ferry::detail {

// Worker side. `fd`: the write end of the crash pipe.
void install_crash_reporter(int fd);
// Takes the module map again if modules were loaded or unloaded since.
void note_loaded_modules();

// Pool side. Everything the pipe holds now (it is read once the worker is
// gone), at most 64 KiB; non-blocking.
std::string read_crash_pipe(int fd);
// The report in `record`, its frames symbolized; nullopt if there is none
// or it is cut short or malformed (every length is checked).
std::optional<crash_report> parse_crash_record(std::string_view record);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_CRASH_REPORT_H_
