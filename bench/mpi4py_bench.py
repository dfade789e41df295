#!/usr/bin/python3
"""mpi4py.futures' side of bench/mpi_bench.cc (Debian's python3-mpi4py),
printing the same JSON lines, under the same mpirun:

    mpirun -n 3 /usr/bin/python3 -m mpi4py.futures bench/mpi4py_bench.py roundtrip|throughput|idle
"""
import os
import sys
import time

from mpi4py.futures import MPIPoolExecutor

from bench_output import emit, measure_roundtrip, measure_throughput


def noop(x):
    return x


def roundtrip(ex):
    measure_roundtrip(ex, noop, "mpi_", 100, 1000)


def throughput(ex):
    # The executor is made below, just before this call: its first result
    # is part of start-up.
    ex.submit(noop, 0).result()
    emit("mpi_start_to_first_result", (time.perf_counter() - STARTED) * 1e3, "ms")
    measure_throughput(ex, noop, "mpi_", "_inflight2", 10_000, (1, 100))


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def ranks_here():
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if ppid == os.getppid():
            pids.append(int(name))
    return pids


def world_rank(pid):
    """The MPI rank of a process of the job, from the variable mpirun sets."""
    with open(f"/proc/{pid}/environ", "rb") as f:
        for var in f.read().split(b"\0"):
            if var.startswith(b"OMPI_COMM_WORLD_RANK="):
                return int(var.split(b"=", 1)[1])
    return -1


def idle(ex):
    ex.submit(noop, 0).result()
    pids = ranks_here()
    before = [cpu_ticks(p) for p in pids]
    t = time.perf_counter()
    time.sleep(3)
    seconds = time.perf_counter() - t
    hz = os.sysconf("SC_CLK_TCK")
    used = {p: (cpu_ticks(p) - b) / hz / seconds * 100 for p, b in zip(pids, before)}
    for p, percent in sorted(used.items(), key=lambda kv: world_rank(kv[0])):
        emit(f"mpi_idle_cpu_rank{world_rank(p)}", percent, "%")
    emit("mpi_idle_cpu_busiest_rank", max(used.values()), "%")


if __name__ == "__main__":
    STARTED = time.perf_counter()
    with MPIPoolExecutor() as ex:
        {"roundtrip": roundtrip, "throughput": throughput, "idle": idle}[sys.argv[1]](ex)
