// Copyright ferry authors.
//
// ferry::map_options: how a pool's map, map_ordered and map_unordered cut
// their input into messages and how far ahead of the caller they send
// them, on process_pool and mpi_pool alike:
//
//   for (auto r : pool.map_unordered(f, lines, {.chunksize = 64, .max_chunks_in_flight = 8}))
//     use(r.index, r.value);
#ifndef FERRY_EXECUTOR_MAP_OPTIONS_H_
#define FERRY_EXECUTOR_MAP_OPTIONS_H_

#include <chrono>
#include <cstddef>
#include <optional>

namespace ferry {

struct map_options {
  // Inputs sent to a worker in one message. 0: chosen as the map goes,
  // from the rate its chunks finish at and the input's size when the
  // range knows it (docs/api/executor.md, "Choosing the chunk size").
  std::size_t chunksize = 0;
  // Most chunks sent and not yet handed to the caller at once: the map
  // reads its input only this far ahead of the loop consuming its results,
  // so an endless input takes bounded memory (buffersize in Python's
  // concurrent.futures, pre_dispatch in joblib). 0: 4 per worker.
  std::size_t max_chunks_in_flight = 0;
  // Every result must be there within this long of the call, else the
  // iteration throws ferry::wait_timeout_error and what was not sent is
  // cancelled. Unset: no limit.
  std::optional<std::chrono::milliseconds> timeout{};
  // Draws a progress bar on stderr while the results are consumed (done
  // and total when the input's size is known, rate, elapsed time and an
  // estimate of what is left), redrawn at most every 100 ms by the thread
  // iterating the results; nothing when stderr is not a terminal, unless
  // this process is a rank of an MPI job, whose stderr its launcher (mpirun,
  // srun) relays: then at most once a second (docs/api/executor.md).
  bool progress = false;
  // Each chunk's task_options::priority: among the tasks not yet sent to a
  // worker, higher first.
  int priority = 0;
  // When set, what ends the map early (leaving the loop, destroying the
  // range, an input's exception, the timeout) also stops the chunks already
  // sent, as future::cancel(grace) with this grace does. Unset: they finish
  // and their results are dropped.
  std::optional<std::chrono::milliseconds> stop_running{};
  // How many times a chunk is sent again, to a new worker, after the worker
  // running it died (each chunk's task_options::retries): its inputs are
  // then copied as it is sent and kept until it ends, to be encoded again.
  // Unset: pool_options::task_retries.
  std::optional<unsigned> retries{};
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_MAP_OPTIONS_H_
