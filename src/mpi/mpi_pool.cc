// Copyright ferry authors.
//
// mpi_pool is a handle on an mpi_core (mpi_core.h), which does the work.
#include <executor/mpi_pool.h>

#include "executor/core/pool_deleter.h"
#include "mpi/mpi_core.h"

namespace ferry {

namespace {
// The pool, or ferry::error for a handle moved from.
detail::mpi_core& pool_of(const std::shared_ptr<detail::mpi_core>& core, const char* call) {
  if (core == nullptr) detail::throw_no_pool(call);
  return *core;
}
}  // namespace

mpi_pool::mpi_pool(mpi_pool_options options)
    : mpi_pool(detail::make_pool_core<detail::mpi_core>(std::move(options))) {}
mpi_pool::mpi_pool(std::shared_ptr<detail::mpi_core> core) : pool_front(core), core_(std::move(core)) {}
mpi_pool::~mpi_pool() = default;
mpi_pool::mpi_pool(const mpi_pool&) = default;
mpi_pool& mpi_pool::operator=(const mpi_pool&) = default;
mpi_pool::mpi_pool(mpi_pool&&) noexcept = default;
mpi_pool& mpi_pool::operator=(mpi_pool&&) noexcept = default;

std::size_t mpi_pool::max_workers() const { return pool_of(core_, "max_workers()").max_workers(); }
std::vector<std::string> mpi_pool::hosts() const { return pool_of(core_, "hosts()").hosts(); }
const mpi_pool_options& mpi_pool::options() const { return pool_of(core_, "options()").options(); }

}  // namespace ferry
