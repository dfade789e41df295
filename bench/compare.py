#!/usr/bin/env python3
"""Prints the comparison table of one benchmark run (scripts/bench.sh).

    bench/compare.py DIR    # DIR holds serialize.json, ferry.jsonl, loky.jsonl
"""
import json
import pathlib
import sys

d = pathlib.Path(sys.argv[1])


def jsonl(name):
    out = {}
    for line in (d / name).read_text().splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            out[r["name"]] = r["value"]
    return out


ferry = jsonl("ferry.jsonl")
loky = jsonl("loky.jsonl")
# Medians of the interleaved repetitions that scripts/bench.sh asks for (a
# file without repetitions has plain entries).
gbench = {b.get("run_name", b["name"]).split("/")[0]: b
          for b in json.loads((d / "serialize.json").read_text())["benchmarks"]
          if b.get("aggregate_name", "median") == "median"}

rows = []


def row(what, mine, unit, peer_name, peer, ratio_note, target):
    if mine is None or peer is None:
        rows.append((what, "n/a" if mine is None else f"{mine:.4g} {unit}", peer_name, "n/a", "", target))
        return
    rows.append((what, f"{mine:.4g} {unit}", peer_name, f"{peer:.4g} {unit}", ratio_note(mine, peer), target))


def ns(name):
    b = gbench.get(name)
    if b is None:
        return None
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
    return b["real_time"] * scale


slower = lambda m, p: f"{m / p:.2f}x the time"
faster_rate = lambda m, p: f"{m / p:.1f}x the rate"
for case, label in [("a", "(a) capture-less lambda"), ("b", "(b) closure: int, double, 16-char string"),
                    ("c", "(c) local aggregate, 1000 doubles"), ("d", "(d) 64 MiB std::string")]:
    for op in ("dumps", "loads"):
        mine, peer = ns(f"{case}_ferry_{op}"), ns(f"{case}_cereal_{op}")
        unit = "ns"
        if case == "d" and mine and peer:
            mine, peer, unit = mine / 1e6, peer / 1e6, "ms"
        target = "<= 1x cereal" if op == "loads" and case in "ab" else "<= 1.2x cereal" if case != "a" else ""
        row(f"{label}, {op}", mine, unit, "raw cereal", peer, slower, target)

row("submit(noop).get() median", ferry.get("roundtrip_median"), "us", "socketpair ping-pong (floor)",
    ferry.get("pingpong_median"), slower, "<= 1.25x the floor")
row("submit(noop).get() median", ferry.get("roundtrip_median"), "us", "loky", loky.get("roundtrip_median"),
    lambda m, p: f"{p / m:.1f}x faster", ">= 10x faster than loky")
row("submit(noop).get() p99", ferry.get("roundtrip_p99"), "us", "socketpair ping-pong (floor)",
    ferry.get("pingpong_p99"), slower, "<= 2x the floor")
row("submit(noop).get() p99", ferry.get("roundtrip_p99"), "us", "loky", loky.get("roundtrip_p99"),
    lambda m, p: f"{p / m:.1f}x faster", "")
# Where a round trip's time goes (executor_bench hops): what the scheduler
# counted per round trip for all of ferry's threads (the caller's, the
# pool's, the worker's) against the floor's two processes, then each side's
# part of ferry's.
floor_times = lambda m, p: f"{m / p:.2f}x the floor's"
share = lambda m, p: f"{m / p:.0%} of all"
for what, key, unit in (("context switches", "switches", "per round trip"),
                        ("run-queue wait", "run_queue_us", "us"), ("CPU on a core", "on_cpu_us", "us")):
    row(f"{what} per round trip, all threads", ferry.get(f"hops_ferry_{key}"), unit,
        "socketpair ping-pong (floor)", ferry.get(f"hops_floor_{key}"), floor_times, "")
    for side in ("caller", "manager", "worker"):
        row(f"{what} per round trip, the {side}", ferry.get(f"hops_ferry_{side}_{key}"), unit,
            "ferry, all threads", ferry.get(f"hops_ferry_{key}"), share, "")
row("submit(noop).get() median, pool_options::spin = 100 us", ferry.get("roundtrip_spin_median"), "us",
    "the same, spin off", ferry.get("roundtrip_nospin_median"), slower, "")
row("submit(noop).get() p99, pool_options::spin = 100 us", ferry.get("roundtrip_spin_p99"), "us",
    "the same, spin off", ferry.get("roundtrip_nospin_p99"), slower, "")
row("CPU per round trip, both processes, spin = 100 us", ferry.get("roundtrip_spin_cpu"), "us",
    "the same, spin off", ferry.get("roundtrip_nospin_cpu"), slower, "")
row("100k no-op tasks, one message each, 2 workers", ferry.get("submit_tasks_per_s"), "tasks/s", "loky",
    loky.get("submit_tasks_per_s"), faster_rate, ">= 40x loky")
row("100k no-op tasks, one message each, 2 workers", ferry.get("submit_tasks_per_s"), "tasks/s",
    "sockets alone, one frame each way per task (floor)", ferry.get("floor_tasks_per_s"),
    lambda m, p: f"{m / p:.2f}x the floor's rate", ">= 1M tasks/s")
row("100k no-op tasks, events on (a counting observer)", ferry.get("observed_submit_tasks_per_s"), "tasks/s",
    "ferry, events off", ferry.get("submit_tasks_per_s"), faster_rate, "")
row("map chunksize 1, 100k items", ferry.get("map_chunk1_items_per_s"), "items/s", "loky",
    loky.get("map_chunk1_items_per_s"), faster_rate, "")
row("map chunksize 256, 100k items", ferry.get("map_chunk256_items_per_s"), "items/s", "loky",
    loky.get("map_chunk256_items_per_s"), faster_rate, ">= 20x loky")
row("map, chunk size chosen by the map, 100k items", ferry.get("map_chunkauto_items_per_s"), "items/s",
    "ferry, chunksize 256", ferry.get("map_chunk256_items_per_s"), faster_rate, "")
row("64 MiB argument + result", ferry.get("large_gbps"), "GB/s", "memcpy of 64 MiB", ferry.get("memcpy_gbps"),
    lambda m, p: f"{m / p:.2f}x memcpy", ">= 2 GB/s")
row("64 MiB argument + result", ferry.get("large_gbps"), "GB/s", "loky", loky.get("large_gbps"), faster_rate, "")
row("1 GiB ferry::shared_buffer to a task and back, median", ferry.get("shared_1gib_roundtrip_us"), "us",
    "submit(noop).get() median", ferry.get("roundtrip_median"), slower, "< 1000 us")
row("1 GiB ferry::shared_buffer, effective rate", ferry.get("shared_gbps"), "GB/s", "loky, 64 MiB by value",
    loky.get("large_gbps"), faster_rate, "")
for what, key, unit in (("an idle worker's resident set", "memory_idle_worker_rss_mib", "MiB"),
                        ("an idle worker's unique set (private pages)", "memory_idle_worker_uss_mib", "MiB"),
                        ("the pool process's resident set, per worker", "memory_parent_per_worker_kib", "KiB"),
                        ("the pool process's resident set, per queued task", "memory_per_queued_task_bytes",
                         "bytes")):
    row(what, ferry.get(key), unit, "loky", loky.get(key), lambda m, p: f"{p / m:.1f}x less", "")
for method, target in (("spawn", "< 10 ms"), ("fork", "< 5 ms")):
    row(f"pool of 2 to first result, {method}", ferry.get(f"start_{method}_ms"), "ms", "loky cold start",
        loky.get("start_ms"), lambda m, p: f"{p / m:.0f}x faster", target)

print("| measure | ferry | against | their figure | ratio | target |")
print("|---|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")

scaling = sorted((int(k.split("_")[1]), v) for k, v in ferry.items() if k.startswith("scaling_") and k.endswith("_s"))
if scaling:
    print()
    print("| workers | 2000 tasks of ~1 ms | speedup over 1 worker |")
    print("|---|---|---|")
    for w, s in scaling:
        print(f"| {w} | {s:.3g} s | {ferry.get(f'scaling_{w}_speedup', 0):.2f}x |")
