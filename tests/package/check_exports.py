#!/usr/bin/env python3
"""Fails when a ferry library exports a ferry symbol that no public header
declares with FERRY_EXPORT: implementation details must stay hidden."""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(sys.argv[1])
libraries = sys.argv[2:]
declared = set()
for header in (root / "include").rglob("*.h"):
    text = header.read_text()
    declared |= set(re.findall(r"(?:class|struct)\s+FERRY_EXPORT\s+(\w+)", text))
    for decl in re.findall(r"FERRY_EXPORT\b([^;{]*)", text):
        m = re.search(r"(\w+)\s*\(", decl)
        if m:
            declared.add(m.group(1))

problems = []
for lib in libraries:
    out = subprocess.run(["nm", "-DC", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        symbol = line.split(" ", 2)[-1]
        name = re.sub(r"^(typeinfo name for|typeinfo for|vtable for)\s+", "", symbol)
        if not name.startswith("ferry::"):
            continue  # std:: template instances and the like
        qualified = re.sub(r"\[abi:\w+\]", "", name.split("(")[0])
        parts = [p for p in re.split(r"::", re.sub(r"<.*>", "", qualified)) if p]
        if not any(p.lstrip("~") in declared for p in parts[1:]):
            problems.append(f"{lib}: exports {symbol}")
for p in problems:
    print(p)
print(f"{len(problems)} undeclared exports")
sys.exit(1 if problems else 0)
