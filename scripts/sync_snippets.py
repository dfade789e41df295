#!/usr/bin/env python3
"""Rewrites each quoted C++ block in README.md and docs/ from its source.

A block is quoted when the line before its ```cpp fence is
    <!-- snippet: PATH#NAME -->
(see tests/docs/check_snippets.py, which the test suite runs). Run this after
editing an example, then review the diff of the pages.
"""
import pathlib
import re
import sys
import textwrap

root = pathlib.Path(__file__).resolve().parent.parent
marker = re.compile(r"<!--\s*snippet:\s*(\S+)#(\S+)\s*-->")


def region(path, name):
    lines = (root / path).read_text().splitlines()
    i = next(n for n, l in enumerate(lines) if l.strip() == f"// [snippet:{name}]")
    j = next(n for n in range(i + 1, len(lines)) if lines[n].strip() == "// [end]")
    return textwrap.dedent("\n".join(lines[i + 1 : j])).strip("\n").splitlines()


for page in [root / "README.md"] + sorted((root / "docs").rglob("*.md")):
    lines = page.read_text().splitlines()
    out, n = [], 0
    while n < len(lines):
        out.append(lines[n])
        m = marker.search(lines[n])
        if m and n + 1 < len(lines) and lines[n + 1].strip() in ("```cpp", "```c++"):
            end = next(k for k in range(n + 2, len(lines)) if lines[k].strip() == "```")
            out += [lines[n + 1]] + region(m.group(1), m.group(2)) + ["```"]
            n = end
        n += 1
    text = "\n".join(out) + "\n"
    if text != page.read_text():
        page.write_text(text)
        print(f"updated {page.relative_to(root)}")
