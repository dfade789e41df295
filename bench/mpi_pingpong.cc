// Copyright ferry authors.
//
// The floor under mpi_bench's round trip: two ranks bouncing a small
// message with plain MPI, polled the way ferry's ranks poll (MPI_Iprobe,
// yielding between probes), with no pool, agent or worker. scripts/
// bench_mpi.sh runs it on one host and across the simulated hosts. Then the
// same for 64 MiB each way, the floor under mpi_bench's large.
//
//   mpirun -n 2 mpi_pingpong
#include <mpi.h>

#include <thread>
#include <vector>

#include "bench_output.h"

namespace {

constexpr int tag = 1;
constexpr int bytes = 80;  // about a small task's or result's message

void wait_for(int peer) {
  for (int arrived = 0; !arrived;) {
    MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &arrived, MPI_STATUS_IGNORE);
    if (!arrived) std::this_thread::yield();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<char> buffer(bytes);
  std::vector<double> us;
  for (int i = 0; i < 3300; ++i) {
    const auto t = bench::clock_type::now();
    if (rank == 0) {
      MPI_Send(buffer.data(), bytes, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
      wait_for(1);
      MPI_Recv(buffer.data(), bytes, MPI_BYTE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      wait_for(0);
      MPI_Recv(buffer.data(), bytes, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), bytes, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
    }
    if (i >= 300) us.push_back(bench::seconds_since(t) * 1e6);
  }
  if (rank == 0) bench::emit("mpi_floor_pingpong_median", bench::percentile(us, 0.5), "us");
  // 64 MiB each way, blocking calls: the bandwidth under mpi_bench's large.
  std::vector<char> large(std::size_t{64} << 20, 'p');
  std::vector<double> seconds;
  for (int i = 0; i < 6; ++i) {
    const auto t = bench::clock_type::now();
    const int n = static_cast<int>(large.size());
    if (rank == 0) {
      MPI_Send(large.data(), n, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
      MPI_Recv(large.data(), n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(large.data(), n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(large.data(), n, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
    }
    if (i > 0) seconds.push_back(bench::seconds_since(t));
  }
  if (rank == 0)
    bench::emit("mpi_floor_64mib_gbps", 2.0 * static_cast<double>(large.size()) / bench::percentile(seconds, 0.5) / 1e9,
                "GB/s");
  MPI_Finalize();
  return 0;
}
