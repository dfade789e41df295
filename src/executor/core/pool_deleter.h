// Copyright ferry authors. Internal: where a pool's core is deleted (both
// pools: pool_core, mpi_core).
//
// A pool's last handle may go on a thread that runs the pool's own loop: a
// callback (future::on_done, an observer) that holds a copy of the handle
// runs on the manager thread or on a thread taking a turn of the loop, and
// is destroyed there. Deleting the core there would wait for the loop the
// thread is in: the manager would join itself (std::terminate), a thread
// taking a turn would wait for a manager that needs the lock it holds. So
// there the core is deleted by a thread of its own, which shuts the pool
// down and joins it once the loop has let go, as the last handle's
// destructor does anywhere else.
//
// Core must have `bool runs_its_loop_here() const`.
#ifndef FERRY_SRC_EXECUTOR_CORE_POOL_DELETER_H_
#define FERRY_SRC_EXECUTOR_CORE_POOL_DELETER_H_

#include <memory>
#include <system_error>
#include <thread>
#include <utility>

namespace ferry::detail {

template <class Core, class... Args>
std::shared_ptr<Core> make_pool_core(Args&&... args) {
  return std::shared_ptr<Core>(new Core(std::forward<Args>(args)...), [](Core* core) {
    if (!core->runs_its_loop_here()) {
      delete core;
      return;
    }
    try {
      std::thread([core] { delete core; }).detach();
    } catch (const std::system_error&) {
      // No thread to be had: the pool is left running rather than the
      // process terminated; it ends with the process.
    }
  });
}

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_POOL_DELETER_H_
