// Copyright ferry authors. Internal: a node agent (agent.cc), what every
// rank but 0 runs inside serve_if_mpi_agent.
//
//   rank 0 ── config ──▶ agent: starts a local_pool (spawn or plugin)
//          ◀── hello ──        host and workers
//          ── task ────▶        local_pool::submit_body ─▶ local workers
//          ◀── result ──        or failure (worker died, timed out ...)
//                               (the agent's one thread polls MPI and turns
//                               the pool, local_pool::turn)
//          ── stop ────▶        shuts the local pool down, answers,
//                               and waits for the next config (a pool
//                               made after the first) or a stop (the
//                               job's end)
//
// The agent never decodes a task or loads a module: its workers do. An
// agent whose pool cannot start says hello with 0 workers. A rank that is
// not its host's agent (every rank knows which are, from join_job) is sent
// nothing but stop, and waits for it.
#ifndef FERRY_SRC_MPI_AGENT_H_
#define FERRY_SRC_MPI_AGENT_H_

namespace ferry::detail::mpi {

// Serves rank 0's pools, one after another, until rank 0 ends the job;
// returns the process's exit status.
int run_agent();

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_AGENT_H_
