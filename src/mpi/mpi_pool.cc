// Copyright ferry authors.
//
// mpi_pool is a handle on an mpi_core (mpi_core.h), which does the work.
#include <executor/mpi_pool.h>

#include "executor/core/held_core.h"
#include "executor/core/pool_deleter.h"
#include "mpi/mpi_core.h"

namespace ferry {

mpi_pool::mpi_pool(mpi_pool_options options)
    : mpi_pool(detail::make_pool_core<detail::mpi_core>(std::move(options))) {}
mpi_pool::mpi_pool(std::shared_ptr<detail::mpi_core> core) : pool_front(core), core_(std::move(core)) {}
mpi_pool::~mpi_pool() = default;
mpi_pool::mpi_pool(const mpi_pool&) = default;
mpi_pool& mpi_pool::operator=(const mpi_pool&) = default;
mpi_pool::mpi_pool(mpi_pool&&) noexcept = default;
mpi_pool& mpi_pool::operator=(mpi_pool&&) noexcept = default;

std::size_t mpi_pool::max_workers() const {
  return detail::held_core(core_, "max_workers()").max_workers();
}
std::vector<std::string> mpi_pool::hosts() const { return detail::held_core(core_, "hosts()").hosts(); }
const mpi_pool_options& mpi_pool::options() const { return detail::held_core(core_, "options()").options(); }

}  // namespace ferry
