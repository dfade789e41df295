#!/usr/bin/python3
"""loky's side of the comparison (Debian's python3-joblib, its vendored
loky), printing the same JSON lines as executor_bench.

    /usr/bin/python3 bench/loky_bench.py roundtrip|throughput|large|start
"""
import json
import statistics
import sys
import time

from joblib.externals.loky import ProcessPoolExecutor, get_reusable_executor


def emit(name, value, unit):
    print(json.dumps({"name": name, "value": value, "unit": unit}), flush=True)


def noop(x):
    return x


def echo(b):
    return b


def percentile(values, p):
    v = sorted(values)
    return v[int(p * (len(v) - 1))]


def roundtrip():
    ex = get_reusable_executor(max_workers=1)
    for i in range(200):
        ex.submit(noop, i).result()
    us = []
    for i in range(2000):
        t = time.perf_counter()
        ex.submit(noop, i).result()
        us.append((time.perf_counter() - t) * 1e6)
    emit("roundtrip_median", percentile(us, 0.5), "us")
    emit("roundtrip_p99", percentile(us, 0.99), "us")


def throughput():
    ex = get_reusable_executor(max_workers=2)
    ex.submit(noop, 0).result()
    n = 100_000
    t = time.perf_counter()
    futures = [ex.submit(noop, i) for i in range(n)]
    for f in futures:
        f.result()
    emit("submit_tasks_per_s", n / (time.perf_counter() - t), "tasks/s")
    for chunk in (1, 256):
        t = time.perf_counter()
        list(ex.map(noop, range(n), chunksize=chunk))
        emit(f"map_chunk{chunk}_items_per_s", n / (time.perf_counter() - t), "items/s")


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
