#!/usr/bin/python3
"""loky's side of the comparison (Debian's python3-joblib, its vendored
loky), printing the same JSON lines as executor_bench.

    /usr/bin/python3 bench/loky_bench.py roundtrip|throughput|large|start|memory
"""
import statistics
import sys
import time

from joblib.externals.loky import ProcessPoolExecutor, get_reusable_executor

from bench_output import emit, measure_roundtrip, measure_throughput


def noop(x):
    return x


def echo(b):
    return b


def roundtrip():
    measure_roundtrip(get_reusable_executor(max_workers=1), noop, "", 200, 2000)


def throughput():
    ex = get_reusable_executor(max_workers=2)
    # The same warm-up as bench/executor_bench.cc's: both workers up and a
    # burst of the measured size already run.
    for f in [ex.submit(noop, i) for i in range(100_000)]:
        f.result()
    measure_throughput(ex, noop, "", "", 100_000, (1, 256))


def large():
    ex = get_reusable_executor(max_workers=1)
    payload = b"p" * (64 << 20)
    ex.submit(echo, payload).result()
    s = []
    for _ in range(3):
        t = time.perf_counter()
        ex.submit(echo, payload).result()
        s.append(time.perf_counter() - t)
    median = statistics.median(s)
    emit("large_roundtrip_ms", median * 1e3, "ms")
    emit("large_gbps", 2 * len(payload) / median / 1e9, "GB/s")


def start():
    ms = []
    for _ in range(3):
        t = time.perf_counter()
        ex = ProcessPoolExecutor(max_workers=2)
        ex.submit(noop, 1).result()
        ms.append((time.perf_counter() - t) * 1e3)
        ex.shutdown(wait=True)
    emit("start_ms", statistics.median(ms), "ms")


def memory_of(pid):
    """Rss and Private_Clean + Private_Dirty of /proc/PID/smaps_rollup, in KiB."""
    rss = uss = 0
    for line in open(f"/proc/{pid}/smaps_rollup"):
        key, value = line.split()[:2]
        if key == "Rss:":
            rss = int(value)
        elif key in ("Private_Clean:", "Private_Dirty:"):
            uss += int(value)
    return rss, uss


def nap(ms):
    time.sleep(ms / 1000)
    return ms


def memory():
    """The same three measures as executor_bench memory."""
    ex = ProcessPoolExecutor(max_workers=1)
    for i in range(100):
        ex.submit(noop, i).result()
    rss, uss = memory_of(next(iter(ex._processes)))
    emit("memory_idle_worker_rss_mib", rss / 1024, "MiB")
    emit("memory_idle_worker_uss_mib", uss / 1024, "MiB")
    ex.shutdown(wait=True)
    before = memory_of("self")[0]
    workers = 8
    ex = ProcessPoolExecutor(max_workers=workers)
    for f in [ex.submit(nap, 20) for _ in range(4 * workers)]:
        f.result()
    emit("memory_parent_per_worker_kib", (memory_of("self")[0] - before) / workers, "KiB")
    ex.shutdown(wait=True)
    ex = ProcessPoolExecutor(max_workers=2)
    for i in range(1000):
        ex.submit(noop, i).result()
    before = memory_of("self")[0]
    queued = [ex.submit(nap, 1500), ex.submit(nap, 1500)]
    queued += [ex.submit(noop, i) for i in range(100_000)]
    after = memory_of("self")[0]
    emit("memory_per_queued_task_bytes", (after - before) * 1024 / 100_000, "bytes")
    for f in queued:
        f.result()
    ex.shutdown(wait=True)


if __name__ == "__main__":
    {"roundtrip": roundtrip, "throughput": throughput, "large": large, "start": start,
     "memory": memory}[sys.argv[1]]()
