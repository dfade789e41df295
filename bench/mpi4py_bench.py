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


def env_of(pid, name):
    """A variable of a process's environment, or None."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            for var in f.read().split(b"\0"):
                if var.startswith(name.encode() + b"="):
                    return var.split(b"=", 1)[1].decode()
    except OSError:
        pass
    return None


def job_ranks():
    """The processes of this MPI job, on every host simulated on this
    machine too: those whose PMIX_NAMESPACE, the job's name, is ours."""
    job = os.environ.get("PMIX_NAMESPACE")
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and job and env_of(n, "PMIX_NAMESPACE") == job]


def idle(ex):
    ex.submit(noop, 0).result()
    pids = job_ranks()
    before = [cpu_ticks(p) for p in pids]
    t = time.perf_counter()
    time.sleep(3)
    seconds = time.perf_counter() - t
    hz = os.sysconf("SC_CLK_TCK")
    used = {p: (cpu_ticks(p) - b) / hz / seconds * 100 for p, b in zip(pids, before)}
    rank = {p: int(env_of(p, "OMPI_COMM_WORLD_RANK")) for p in pids}
    for p, percent in sorted(used.items(), key=lambda kv: rank[kv[0]]):
        emit(f"mpi_idle_cpu_rank{rank[p]}", percent, "%")
    emit("mpi_idle_cpu_busiest_rank", max(used.values()), "%")


if __name__ == "__main__":
    STARTED = time.perf_counter()
    with MPIPoolExecutor() as ex:
        {"roundtrip": roundtrip, "throughput": throughput, "idle": idle}[sys.argv[1]](ex)
