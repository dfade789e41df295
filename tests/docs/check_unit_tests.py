#!/usr/bin/env python3
"""Each unit of ferry's code has a test file named after it, and each test's
name leads to its file.

A unit is a source file under src/ (src/serialize/code/elf_file.cc); its
test is tests/<any folder>/elf_file_test.cc, a `_linux` suffix dropped or
kept (doorbell_linux.cc: doorbell_test.cc). The programs' entry points
(ferry_worker.cc, ferry_inspect.cc) are not units. A unit without its
test fails, with no list of exceptions.

Every test suite declared in x_y_test.cc begins with XY (ElfFile.*,
ElfFileNotes.* in elf_file_test.cc), and no suite is declared in two
files: a failing test's name says where it is.

  check_unit_tests.py ROOT            checks the repository
  check_unit_tests.py ROOT PLANTED     also checks what PLANTED names, as if
                                      it were there: a unit path of src/,
                                      or a test file and a suite declared in
                                      it (the test that proves the checks fail)
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
entry_points = {"ferry_worker", "ferry_inspect"}
suite_line = re.compile(r"^(?:TEST|TEST_F|TEST_P|TYPED_TEST)\((\w+),", re.M)

test_files = sorted((root / "tests").rglob("*_test.cc"))
tests = {p.name for p in test_files}
paths = [str(p.relative_to(root)) for p in sorted((root / "src").rglob("*.cc"))]
suites = [(str(p.relative_to(root)), s) for p in test_files for s in sorted(set(suite_line.findall(p.read_text())))]
if sys.argv[2:]:
    for line in pathlib.Path(sys.argv[2]).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("src/"):
            paths.append(line)
        elif line:
            file, suite = line.split()
            suites.append((file, suite))


def camel(stem):
    return "".join(w.capitalize() for w in stem.split("_"))


problems = []
units = 0
for unit in paths:
    stem = pathlib.PurePath(unit).stem
    if stem in entry_points:
        continue
    units += 1
    if not {f"{stem}_test.cc", f"{stem.removesuffix('_linux')}_test.cc"} & tests:
        problems.append(f"{unit} has no test file of its name: write tests/.../{stem.removesuffix('_linux')}_test.cc")

declared = {}
for file, suite in suites:
    stem = pathlib.PurePath(file).stem.removesuffix("_test")
    prefixes = {camel(stem).lower(), camel(stem.removesuffix("_linux")).lower()}
    if not any(suite.lower().startswith(p) for p in prefixes):
        problems.append(f"{file}: suite {suite} does not lead to its file: name it {camel(stem.removesuffix('_linux'))}...")
    declared.setdefault(suite, []).append(file)
for suite, files in declared.items():
    if len(files) > 1:
        problems.append(f"suite {suite} is declared in {' and '.join(files)}: give each file its own")

for p in problems:
    print(p)
print(f"{units} units, {units - sum('has no test file' in p for p in problems)} with a test of their name, "
      f"{len(suites)} suites, {len(problems)} problems")
sys.exit(1 if problems else 0)
