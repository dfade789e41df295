// Copyright ferry authors. Internal: the private directory where an MPI
// agent keeps the modules rank 0 ships to it (mpi_pool_options::
// ship_modules), which its workers search by build-id.
//
// Made only when rank 0 ships modules, with mkdtemp (mode 0700, a fresh
// name: never a directory someone else made, nor a stale one of a recycled
// pid) as $TMPDIR/ferry-modules-<pid>.XXXXXX, or under /tmp.
//
// Removed, with what it holds, however the agent ends. Its owner removes it
// when destroyed. For every other end (a signal, which mpirun follows with
// SIGKILL to the rank's process group within milliseconds; scancel; a
// crash) a guard process forked when the directory is made removes it: in
// a session of its own (mpirun's kill of the agent's process group misses
// it), ignoring SIGTERM, SIGINT and SIGHUP (Slurm signals every process of
// the job), it waits for the end of a pipe whose other end only the agent
// holds, which the kernel closes when the agent is gone, then empties and
// removes the directory and exits. Only SIGKILL of the guard itself (Slurm
// sends it to what is left KillWait seconds after SIGTERM) leaves the
// directory behind.
//
// Why files and not memfds, which nothing outlives: the workers find a
// shipped module by build-id in their search directories, which they learn
// when they start, and a module may arrive after they have; a memfd's
// /proc path cannot be in a directory they index.
//
// Thread-safety: one per process; made and destroyed by one thread.
#ifndef FERRY_SRC_MPI_MODULES_DIR_LINUX_H_
#define FERRY_SRC_MPI_MODULES_DIR_LINUX_H_

#include <sys/types.h>

#include <filesystem>

#include "internal/unique_fd.h"

namespace ferry::detail::mpi {

class modules_dir {
 public:
  // Throws ferry::error when the directory or its guard cannot be made.
  modules_dir();
  // Removes the directory, then ends the guard and reaps it.
  ~modules_dir();
  modules_dir(const modules_dir&) = delete;
  modules_dir& operator=(const modules_dir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  pid_t guard() const { return guard_; }

 private:
  std::filesystem::path path_;
  unique_fd dir_fd_;     // the directory, open: emptied without building paths
  unique_fd agent_end_;  // of the pipe; its close ends the guard
  pid_t guard_ = -1;
};

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_MODULES_DIR_LINUX_H_
