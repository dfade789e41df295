#!/usr/bin/env python3
"""Each unit of ferry's code has a test file named after it.

A unit is a source file under src/ (src/serialize/code/elf_file.cc); its
test is tests/<any folder>/elf_file_test.cc, a `_linux` suffix dropped or
kept (doorbell_linux.cc: doorbell_test.cc). The programs' entry points
(ferry_worker.cc, ferry_inspect.cc) are not units. A unit without its
test fails, with no list of exceptions.

  check_unit_tests.py ROOT            checks the repository
  check_unit_tests.py ROOT PLANTED     also checks the unit paths PLANTED
                                      names, as if they were in src/ (the
                                      test that proves a missing one fails)
"""
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
entry_points = {"ferry_worker", "ferry_inspect"}

tests = {p.name for p in (root / "tests").rglob("*_test.cc")}
paths = [str(p.relative_to(root)) for p in sorted((root / "src").rglob("*.cc"))]
if sys.argv[2:]:
    for line in pathlib.Path(sys.argv[2]).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            paths.append(line)

problems = []
units = 0
for unit in paths:
    stem = pathlib.PurePath(unit).stem
    if stem in entry_points:
        continue
    units += 1
    if not {f"{stem}_test.cc", f"{stem.removesuffix('_linux')}_test.cc"} & tests:
        problems.append(f"{unit} has no test file of its name: write tests/.../{stem.removesuffix('_linux')}_test.cc")

for p in problems:
    print(p)
print(f"{units} units, {units - len(problems)} with a test of their name, {len(problems)} problems")
sys.exit(1 if problems else 0)
