// Copyright ferry authors. Internal: which fields of ferry::pool_options
// an MPI pool sends its agents in their configuration (mpi_messages.h,
// kind config), and which stay on rank 0, each with why. Every field is in
// exactly one list: a field added to pool_options fails the static_assert
// below until it is placed, and tests/mpi/mpi_messages_test.cc checks that
// the lists name each field once and that each sent field round-trips. The
// codec is derived from sent_fields (mpi_messages.cc): placing a field is
// the one edit a new option needs here.
#ifndef FERRY_SRC_MPI_AGENT_CONFIG_FIELDS_H_
#define FERRY_SRC_MPI_AGENT_CONFIG_FIELDS_H_

#include <boost/pfr/tuple_size.hpp>

#include <tuple>

#include <executor/pool_options.h>

namespace ferry::detail::mpi {

// Sent, in this order, each as its type's encoding (mpi_messages.cc).
inline constexpr auto sent_fields = std::make_tuple(
    &pool_options::max_workers, &pool_options::start, &pool_options::idle_timeout,
    &pool_options::max_tasks_per_worker, &pool_options::task_timeout, &pool_options::max_worker_memory,
    &pool_options::env, &pool_options::unset_env, &pool_options::inner_threads, &pool_options::max_message_size,
    &pool_options::shared_memory_threshold, &pool_options::spin, &pool_options::worker_output,
    &pool_options::worker_program);

// Kept on rank 0.
inline constexpr auto kept_fields = std::make_tuple(
    &pool_options::task_retries,  // rank 0 sends a task again (retries.h): a new task there
    &pool_options::initializer,   // encoded apart: agent_config::initializer
    &pool_options::observer,      // told on rank 0; the agents relay worker events to it
    &pool_options::on_output,     // refused by mpi_pool: it would run on other hosts
    &pool_options::trace);        // recorded and written on rank 0

static_assert(std::tuple_size_v<decltype(sent_fields)> + std::tuple_size_v<decltype(kept_fields)> ==
                  boost::pfr::tuple_size_v<pool_options>,
              "a field of ferry::pool_options is neither sent to the MPI agents nor kept on rank 0: "
              "add it to sent_fields or kept_fields in src/mpi/agent_config_fields.h");

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_AGENT_CONFIG_FIELDS_H_
