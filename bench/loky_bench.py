#!/usr/bin/python3
"""loky's side of the comparison (Debian's python3-joblib, its vendored
loky), printing the same JSON lines as executor_bench.

    /usr/bin/python3 bench/loky_bench.py roundtrip|throughput|large|start
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


if __name__ == "__main__":
    {"roundtrip": roundtrip, "throughput": throughput, "large": large, "start": start}[sys.argv[1]]()
