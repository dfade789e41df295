#!/usr/bin/env python3
"""Fails when a ferry library exports a ferry symbol that no header declares
with FERRY_EXPORT: implementation details must stay hidden. The declarations
are in the public headers (include/), and, for what libferry_serialize
exports to libferry_executor alone, in the src/ headers that say so; each of
those is listed, so that the surface shared between the libraries stays in
view."""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(sys.argv[1])
libraries = sys.argv[2:]
declared = set()
headers = list((root / "include").rglob("*.h"))
shared = sorted(h for h in (root / "src").rglob("*.h") if "FERRY_EXPORT" in h.read_text())
for h in shared:
    print(f"exported for ferry's other library: {h.relative_to(root)}")
for header in headers + shared:
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
