#!/usr/bin/env python3
"""Prints a table of docs/performance.md's MPI section from the JSON lines
that scripts/bench_mpi.sh collected in one run:

    compare_mpi.py DIR [SUFFIX]   # SUFFIX "_2h": the two simulated hosts
"""
import json
import pathlib
import statistics
import sys


def values(path):
    """name -> ([the value printed by each job], unit)."""
    seen = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.startswith("{"):
                m = json.loads(line)
                seen.setdefault(m["name"], ([], m["unit"]))[0].append(m["value"])
    return seen


def load(path):
    """name -> (value, unit); a measure printed by several jobs of the run
    (the round trip, whose median moves with where the scheduler places
    the ranks) gives the median of their values."""
    return {name: (statistics.median(v), unit) for name, (v, unit) in values(path).items()}


d = pathlib.Path(sys.argv[1])
suffix = sys.argv[2] if len(sys.argv) > 2 else ""
ferry, mpi4py, pool = (load(d / f"{f}{suffix}.jsonl") for f in ("ferry_mpi", "mpi4py", "process_pool"))
# The process pool's names for the same measures.
pool_name = {
    "mpi_roundtrip_median": "roundtrip_median",
    "mpi_submit_tasks_per_s_inflight2": "submit_tasks_per_s",
    "mpi_map_chunk1_items_per_s_inflight2": "map_chunk1_items_per_s",
    "mpi_map_chunk100_items_per_s_inflight2": "map_chunk100_items_per_s",
    "mpi_start_to_first_result": "start_spawn_ms",
    "mpi_large_gbps": "large_gbps",
}
lower_is_better = {"us", "ms", "%"}
print(f"| measure | ferry mpi_pool | mpi4py.futures | ferry vs mpi4py | process_pool | mpi_pool vs process_pool |")
print("|---|---|---|---|---|---|")
for name, (value, unit) in ferry.items():
    other = mpi4py.get(name)
    local = pool.get(pool_name.get(name, ""))
    def ratio(a, b):
        if b is None or a == 0 or b[0] == 0:
            return ""
        r = b[0] / a if unit in lower_is_better else a / b[0]
        return f"{r:.1f}x"
    print(f"| {name} | {value:.4g} {unit} | {'' if other is None else f'{other[0]:.4g} {unit}'} | "
          f"{ratio(value, other)} | {'' if local is None else f'{local[0]:.4g} {local[1]}'} | "
          f"{ratio(value, local)} |")
# The jobs behind the round trip's medians, in the order they ran.
jobs = (("ferry", "ferry_mpi", "mpi_roundtrip_median"), ("mpi4py.futures", "mpi4py", "mpi_roundtrip_median"),
        ("process_pool", "process_pool", "roundtrip_median"))
found = [(side, values(d / f"{f}{suffix}.jsonl").get(n)) for side, f, n in jobs]
print()
print("round trip medians, job by job: " + "; ".join(
    f"{side} {', '.join(f'{v:.4g}' for v in got[0])} {got[1]}" for side, got in found if got))
