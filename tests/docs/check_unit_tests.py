#!/usr/bin/env python3
"""Each unit of ferry's code has a test file named after it.

A unit is a source file under src/ (src/serialize/code/elf_file.cc); its
test is tests/<any folder>/elf_file_test.cc, a `_linux` suffix dropped or
kept (doorbell_linux.cc: doorbell_test.cc). The programs' entry points
(ferry_worker.cc, ferry_inspect.cc) are not units.

Units that have no such file yet are listed, each with the test file that
tests it now under another name, or "-" where only the pools' tests reach
it, in tests/docs/units_without_own_test.txt: the list may only shrink. A
new unit without its test fails, and so does a listed one that has its
test now (take it off the list) or no longer exists.

  check_unit_tests.py ROOT            checks the repository
  check_unit_tests.py ROOT LIST       checks against LIST instead
"""
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
listing = pathlib.Path(sys.argv[2]) if sys.argv[2:] else root / "tests/docs/units_without_own_test.txt"
entry_points = {"ferry_worker", "ferry_inspect"}

tests = {p.name for p in (root / "tests").rglob("*_test.cc")}
units = {}
for path in sorted((root / "src").rglob("*.cc")):
    if path.stem in entry_points:
        continue
    names = {f"{path.stem}_test.cc", f"{path.stem.removesuffix('_linux')}_test.cc"}
    units[str(path.relative_to(root))] = bool(names & tests)

listed = {}
for n, line in enumerate(listing.read_text().splitlines(), 1):
    line = line.split("#", 1)[0].strip()
    if line:
        unit, _, where = line.partition(" ")
        listed[unit] = (n, where.strip())

problems = []
for unit, has_test in units.items():
    if not has_test and unit not in listed:
        stem = pathlib.Path(unit).stem
        problems.append(f"{unit} has no test file of its name: write tests/.../{stem}_test.cc")
    if has_test and unit in listed:
        problems.append(f"{listing.name}:{listed[unit][0]}: {unit} has its own test now: take it off the list")
for unit, (n, where) in listed.items():
    if unit not in units:
        problems.append(f"{listing.name}:{n}: {unit} is not a unit of src/")
    elif where != "-" and not (root / where).exists():
        problems.append(f"{listing.name}:{n}: {unit} is said to be tested by {where}, which does not exist")

for p in problems:
    print(p)
print(f"{len(units)} units, {sum(units.values())} with a test of their name, "
      f"{len(listed)} listed without one, {len(problems)} problems")
sys.exit(1 if problems else 0)
