// Copyright ferry authors.
//
// process_pool is a handle on a pool_core (pool_core.h), which does the work.
#include <executor/process_pool.h>

#include <string>

#include "executor/core/held_core.h"
#include "executor/core/pool_deleter.h"
#include "executor/pool/pool_core.h"

namespace ferry {

namespace {

pool_options with_workers(int max_workers) {
  if (max_workers < 0)
    throw error("ferry: process_pool(" + std::to_string(max_workers) +
                "): a worker count cannot be negative; pass 0 for one worker per CPU (cpu_count())");
  pool_options options;
  options.max_workers = static_cast<std::size_t>(max_workers);
  return options;
}

}  // namespace

process_pool::process_pool(pool_options options)
    : process_pool(detail::make_pool_core<detail::pool_core>(std::move(options))) {}
process_pool::process_pool(int max_workers) : process_pool(with_workers(max_workers)) {}
process_pool::process_pool(std::shared_ptr<detail::pool_core> core)
    : pool_front(core), core_(std::move(core)) {}
process_pool::~process_pool() = default;
process_pool::process_pool(const process_pool&) = default;
process_pool& process_pool::operator=(const process_pool&) = default;
process_pool::process_pool(process_pool&&) noexcept = default;
process_pool& process_pool::operator=(process_pool&&) noexcept = default;

std::size_t process_pool::max_workers() const {
  return detail::held_core(core_, "max_workers()").max_workers();
}
void process_pool::resize(std::size_t max_workers) { detail::held_core(core_, "resize").resize(max_workers); }
std::vector<int> process_pool::worker_pids() const {
  return detail::held_core(core_, "worker_pids()").worker_pids();
}
const pool_options& process_pool::options() const { return detail::held_core(core_, "options()").options(); }

}  // namespace ferry
