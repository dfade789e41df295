#!/usr/bin/env python3
"""The include line says which layer a header belongs to.

- A public header (under include/) is included in angle brackets,
  `#include <executor/pool_options.h>`; a private one (under src/) in
  quotes, `#include "executor/pool/pool_core.h"`.
- The MPI library reaches the executor's internals through one interface:
  src/executor/core/ (the skeleton both pools are built from) and
  src/executor/wire/ (the bytes between processes), nothing else.

  check_layers.py ROOT            checks src/, tests/, bench/, examples/
  check_layers.py ROOT FILE...    checks FILEs as if they were in src/mpi/
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
mpi_may_reach = ("executor/core/", "executor/wire/")
include = re.compile(r'^\s*#\s*include\s*([<"])((?:executor|serialize)/[^">]+)[">]', re.M)

if sys.argv[2:]:
    files = [(pathlib.Path(f), True) for f in sys.argv[2:]]
else:
    files = [(p, p.is_relative_to(root / "src" / "mpi"))
             for d in ("src", "tests", "bench", "examples") for p in sorted((root / d).rglob("*"))
             if p.suffix in (".h", ".cc", ".cpp")]

problems = []
for path, is_mpi in files:
    name = path.relative_to(root) if path.is_relative_to(root) else path
    for bracket, header in include.findall(path.read_text()):
        public = (root / "include" / header).exists()
        private = (root / "src" / header).exists()
        if bracket == '"' and public:
            problems.append(f'{name}: "{header}" is a public header: include it as <{header}>')
        elif bracket == "<" and private:
            problems.append(f'{name}: <{header}> is a private header under src/: include it as "{header}"')
        if is_mpi and private and header.startswith("executor/") and not header.startswith(mpi_may_reach):
            problems.append(f"{name}: the MPI library includes {header}; it reaches the executor's "
                            f"internals only through src/executor/core/ and src/executor/wire/")

for p in problems:
    print(p)
print(f"{len(files)} files checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
