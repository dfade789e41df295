// Copyright ferry authors. Internal: how both pools observe, the user's
// observer or a trace recorder that records the timeline and forwards to it.
// Part of the skeleton the MPI library reaches through src/executor/core/.
#ifndef FERRY_SRC_EXECUTOR_CORE_POOL_OBSERVATION_H_
#define FERRY_SRC_EXECUTOR_CORE_POOL_OBSERVATION_H_

#include <memory>

#include <executor/events.h>
#include <executor/pool_options.h>
#include "executor/observe/trace_recorder.h"

namespace ferry::detail {

// What a pool tells its events to, and the timeline it records, the same
// for both pools: made with the pool; the timeline written once the pool's
// manager loop has returned (from that thread, before shutdown returns).
class pool_observation {
 public:
  // `records_trace`: false for a pool whose timeline is recorded elsewhere
  // (an MPI agent's local pool: rank 0 records the MPI pool's).
  pool_observation(const pool_options& options, bool records_trace)
      : observer_(records_trace ? trace_recorder::for_pool(options, &trace_) : options.observer) {}

  // Null when nobody listens: a pool then makes no event.
  pool_observer* observer() const { return observer_.get(); }
  // From the manager's thread, after its loop: writes the timeline, if any.
  void loop_ended() const {
    if (trace_) trace_->write();
  }

 private:
  std::shared_ptr<trace_recorder> trace_;
  std::shared_ptr<pool_observer> observer_;  // options.observer, or trace_ forwarding to it
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_POOL_OBSERVATION_H_
