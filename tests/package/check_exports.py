#!/usr/bin/env python3
"""Fails when one of ferry's libraries exports a ferry symbol that is not
declared for export by that library: implementation details stay hidden.

Each library has its public macro, used in the headers users include
(include/): FERRY_SERIALIZE_EXPORT, FERRY_EXECUTOR_EXPORT, FERRY_MPI_EXPORT.
What a library exports for ferry's other libraries alone is declared with
FERRY_INTERNAL_EXPORT in its own src/ headers, inside ferry::detail; those
are listed, so that the surface shared between the libraries stays in view.

  check_exports.py ROOT NAME=LIBRARY...   (NAME: serialize, executor or mpi)
"""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(sys.argv[1])
public_macro = {"serialize": "FERRY_SERIALIZE_EXPORT", "executor": "FERRY_EXECUTOR_EXPORT",
                "mpi": "FERRY_MPI_EXPORT"}
# Where each library's internal exports are declared.
internal_dir = {"serialize": "src/serialize", "executor": "src/executor", "mpi": "src/mpi"}


def declared(texts, macro):
    names = set()
    for text in texts:
        names |= set(re.findall(r"(?:class|struct)\s+" + macro + r"\s+(\w+)", text))
        for decl in re.findall(macro + r"\b([^;{]*)", text):
            m = re.search(r"(\w+)\s*\(", decl)
            if m:
                names.add(m.group(1))
    return names


public_texts = [h.read_text() for h in (root / "include").rglob("*.h")]
problems = []
for arg in sys.argv[2:]:
    name, lib = arg.split("=", 1)
    public = declared(public_texts, public_macro[name])
    headers = sorted(h for h in (root / internal_dir[name]).rglob("*.h")
                     if "FERRY_INTERNAL_EXPORT" in h.read_text())
    for h in headers:
        print(f"{name}: exported for ferry's own libraries: {h.relative_to(root)}")
    internal = declared([h.read_text() for h in headers], "FERRY_INTERNAL_EXPORT")
    out = subprocess.run(["nm", "-DC", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    count = 0
    for line in out.splitlines():
        symbol = line.split(" ", 2)[-1]
        sym = re.sub(r"^(typeinfo name for|typeinfo for|vtable for)\s+", "", symbol)
        if not sym.startswith("ferry::"):
            continue  # std:: template instances and the like
        count += 1
        qualified = re.sub(r"\[abi:\w+\]", "", sym.split("(")[0])
        parts = [p.lstrip("~") for p in re.split(r"::", re.sub(r"<.*>", "", qualified)) if p]
        if any(p in public for p in parts[1:]):
            continue
        if any(p in internal for p in parts[1:]):
            if parts[1] != "detail":
                problems.append(f"{lib}: {symbol} is an internal export outside ferry::detail")
            continue
        problems.append(f"{lib}: exports {symbol}, which no {name} header declares for export")
    if count == 0:
        problems.append(f"{lib}: exports no ferry symbol at all (is it the {name} library?)")
for p in problems:
    print(p)
print(f"{len(problems)} undeclared exports")
sys.exit(1 if problems else 0)
