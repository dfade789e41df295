// Copyright ferry authors.
//
// A user's MPI program, run under Slurm by tests/slurm/slurm_test.sh and
// under mpirun by tests/mpi/ended_job_test.sh.
//   slurm_job workers     prints "workers N hosts H": the pool's workers and hosts
//   slurm_job cancelled   rank 0 ignores SIGTERM, as a program that saves its
//                         work might; it ships modules and starts a task of five
//                         minutes from a shared library (so that its agent keeps
//                         that module in its directory), prints "running", and
//                         then how that task's future ended
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include <executor/mpi_pool.h>

#include "../executor/test_tasks.h"

int main(int argc, char** argv) {
  ferry::serve_if_mpi_agent(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  ferry::mpi_pool_options options;
  options.agent_timeout = std::chrono::seconds(2);
  options.ship_modules = mode == "cancelled";
  ferry::mpi_pool pool(options);
  if (mode == "workers") {
    std::cout << "workers " << pool.max_workers() << " hosts " << pool.hosts().size() << std::endl;
    return 0;
  }
  if (mode != "cancelled") return 2;
  std::signal(SIGTERM, SIG_IGN);
  auto task = pool.submit(test_tasks::sleep_ms(), 300'000);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  std::cout << "running" << std::endl;
  try {
    task.get();
    std::cout << "finished" << std::endl;
  } catch (const ferry::worker_died_error& e) {
    std::cout << "failed: worker_died_error: " << e.what() << std::endl;
  } catch (const ferry::error& e) {
    std::cout << "failed: " << e.what() << std::endl;
  }
  return 0;
}
