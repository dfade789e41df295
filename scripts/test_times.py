#!/usr/bin/env python3
"""Where a test run's time went: the build's seconds and the tests' wall
time, as ./scripts/test.sh measured them, then the tests' seconds summed by
group (tests run several at a time, so groups overlap in time) and the slowest tests, from the
JUnit file ctest wrote (--output-junit).

  test_times.py JUNIT_XML BUILD_SECONDS TEST_SECONDS
"""
import collections
import sys
import xml.etree.ElementTree as ET

junit, build_s, test_s = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])


def group(name):
    first = name.split(".")[0]
    if first in ("spawn", "fork", "plugin"):
        return f"pool tests under {first}"
    if first == "O0":
        return "pool tests at -O0"
    if first == "mpi" or name == "mpi_two_hosts":
        return "MPI jobs (one mpirun per suite)"
    for prefix, label in (("compile_fail_", "compile-fail cases"), ("slurm", "Slurm clusters"),
                          ("package_", "package consumers (install, builds)"), ("docs_", "docs checks"),
                          ("fuzz_", "fuzz targets"), ("example_", "examples")):
        if name.startswith(prefix):
            return label
    return "the rest (units, scripts, pages)"


seconds, counts, tests = collections.Counter(), collections.Counter(), []
for case in ET.parse(junit).getroot().iter("testcase"):
    name, t = case.get("name"), float(case.get("time") or 0)
    seconds[group(name)] += t
    counts[group(name)] += 1
    tests.append((t, name))
print(f"time: build {build_s:.0f} s, tests {test_s:.0f} s (wall), {len(tests)} tests")
for g, s in seconds.most_common():
    print(f"  {s:7.1f} s  {counts[g]:5d}  {g}")
print("  slowest:", ", ".join(f"{n} {t:.1f} s" for t, n in sorted(tests, reverse=True)[:5]))
