// Copyright ferry authors.
#include "serialize/code/fork_guard.h"

#include <pthread.h>

namespace ferry::detail {
namespace {

void each(fork_phase phase) {
  if (phase == fork_phase::acquire) {
    hold_modules_for_fork(phase);
    hold_loaded_modules_for_fork(phase);
    hold_policy_for_fork(phase);
    hold_registry_for_fork(phase);
    hold_verified_for_fork(phase);
    hold_build_id_index_for_fork(phase);
  } else {
    hold_build_id_index_for_fork(phase);
    hold_verified_for_fork(phase);
    hold_registry_for_fork(phase);
    hold_policy_for_fork(phase);
    hold_loaded_modules_for_fork(phase);
    hold_modules_for_fork(phase);
  }
}

[[maybe_unused]] const int installed = pthread_atfork([] { each(fork_phase::acquire); },
                                                      [] { each(fork_phase::release); },
                                                      [] { each(fork_phase::release); });

}  // namespace
}  // namespace ferry::detail
