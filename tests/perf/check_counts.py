#!/usr/bin/env python3
"""Counts the instructions of ferry's hot calls under callgrind and compares
them with the committed baseline (tests/perf/instruction_counts.baseline).

An instruction count repeats exactly from run to run of one binary, where a
clock on a shared machine swings by tens of percent: a count that grows by
more than 15% is a regression nobody's noise explains. Fails then, naming
the operation; scripts/update_instruction_counts.sh rewrites the baseline
(say in the commit why a count grew).

  check_counts.py --valgrind VALGRIND --baseline FILE [--update] PROGRAM
"""
import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Operation and iterations: enough that set-up inside the counted functions
# is noise, few enough for a test (each run takes seconds under valgrind).
OPERATIONS = [("dumps_a", 2000), ("loads_a", 2000), ("dumps_b", 2000), ("loads_b", 2000),
              ("submit_get", 300)]
# Raw cereal's loads of the same values, printed beside ferry's, never
# checked: docs/performance.md's target is ferry's loads at most cereal's.
REFERENCES = [("cereal_loads_a", 2000), ("cereal_loads_b", 2000)]
GROWTH_LIMIT = 1.15


def count(valgrind, program, op, iterations):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(
            [valgrind, "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=*ferry_counted_*",
             f"--callgrind-out-file={out}", program, op, str(iterations)],
            capture_output=True, text=True, timeout=240)
        if run.returncode != 0 or "ok" not in run.stdout:
            sys.exit(f"{op}: {program} failed under valgrind (exit {run.returncode}):\n{run.stderr[-3000:]}")
        m = re.search(r"^summary:\s+(\d+)", out.read_text(), re.M)
        if m is None:
            sys.exit(f"{op}: no summary line in callgrind's output")
        total = int(m.group(1))
        if total == 0:
            sys.exit(f"{op}: callgrind counted nothing: are the ferry_counted_* functions inlined?")
        return total // iterations


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--valgrind", default="valgrind")
    ap.add_argument("--baseline", required=True, type=Path)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("program")
    args = ap.parse_args()

    # A payload names the module of its code by path, here the program's, so
    # the counts grew with the length of the checkout's path (a fresh clone
    # in a temporary directory counted 1.16x what the same build did
    # elsewhere): the program runs from a directory whose path has the same
    # length wherever the build is. Its libraries are found by absolute
    # RUNPATH.
    with tempfile.TemporaryDirectory(prefix="ferry-counts-", dir="/tmp") as place:
        program = Path(place) / "instruction_counts"
        shutil.copy2(args.program, program)
        counts = {op: count(args.valgrind, str(program), op, n) for op, n in OPERATIONS + REFERENCES}
    if args.update:
        lines = ["# Instructions per call under callgrind (tests/perf/check_counts.py), of the",
                 "# default preset's build (RelWithDebInfo). Rewritten by",
                 "# scripts/update_instruction_counts.sh; the commit says why a count grew."]
        lines += [f"{op} {counts[op]}" for op, _ in OPERATIONS]
        args.baseline.write_text("\n".join(lines) + "\n")
        print(f"wrote {args.baseline}")

    baseline = {}
    for line in args.baseline.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            op, n = line.split()
            baseline[op] = int(n)
    failed = []
    for op, _ in OPERATIONS:
        if op not in baseline:
            failed.append(f"{op}: not in {args.baseline}; run scripts/update_instruction_counts.sh")
            continue
        ratio = counts[op] / baseline[op]
        print(f"{op:12} {counts[op]:8} instructions per call, baseline {baseline[op]:8} ({ratio:.3f}x)")
        if ratio > GROWTH_LIMIT:
            failed.append(f"{op}: {counts[op]} instructions per call, {ratio:.2f}x the baseline's "
                          f"{baseline[op]} (limit {GROWTH_LIMIT}x). Find what grew (callgrind_annotate), "
                          "or, if the growth is meant, run scripts/update_instruction_counts.sh and "
                          "say why in the commit")
    for case in ("a", "b"):
        print(f"loads_{case} against raw cereal's: {counts['loads_' + case] / counts['cereal_loads_' + case]:.2f}x "
              "the instructions")
    if failed:
        sys.exit("\n".join(failed))
    print("ok")


if __name__ == "__main__":
    main()
