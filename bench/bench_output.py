"""What the Python peers' benchmarks of bench/ print and measure the same
way as bench/bench_output.h and bench/pool_measures.h: JSON lines
{"name": ..., "value": ..., "unit": ...}, for any executor with
concurrent.futures' submit and map (loky in loky_bench.py, mpi4py.futures
in mpi4py_bench.py)."""
import json
import time


def emit(name, value, unit):
    print(json.dumps({"name": name, "value": value, "unit": unit}), flush=True)


def percentile(values, p):
    v = sorted(values)
    return v[int(p * (len(v) - 1))]


def measure_roundtrip(ex, task, prefix, warm_up, count):
    """ex.submit(task, i).result(), one at a time: <prefix>roundtrip_median and _p99."""
    for i in range(warm_up):
        ex.submit(task, i).result()
    us = []
    for i in range(count):
        t = time.perf_counter()
        ex.submit(task, i).result()
        us.append((time.perf_counter() - t) * 1e6)
    emit(f"{prefix}roundtrip_median", percentile(us, 0.5), "us")
    emit(f"{prefix}roundtrip_p99", percentile(us, 0.99), "us")


def measure_throughput(ex, task, prefix, suffix, count, chunks):
    """count tasks submitted at once, then map over as many inputs at each
    chunk size: <prefix>submit_tasks_per_s<suffix>, <prefix>map_chunk<n>_items_per_s<suffix>."""
    t = time.perf_counter()
    futures = [ex.submit(task, i) for i in range(count)]
    for f in futures:
        f.result()
    emit(f"{prefix}submit_tasks_per_s{suffix}", count / (time.perf_counter() - t), "tasks/s")
    for chunk in chunks:
        t = time.perf_counter()
        list(ex.map(task, range(count), chunksize=chunk))
        emit(f"{prefix}map_chunk{chunk}_items_per_s{suffix}", count / (time.perf_counter() - t), "items/s")
