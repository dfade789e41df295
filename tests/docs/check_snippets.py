#!/usr/bin/env python3
"""Fails when a C++ block in the docs is not an exact quote of built code.

Every ```cpp block in README.md and docs/ must be preceded by a line
    <!-- snippet: PATH#NAME -->
naming a region of a file in the repository that lies between the lines
"// [snippet:NAME]" and "// [end]". Those files are examples built and run
by the test suite (or compile-fail tests, for blocks that show misuse), so a
block that no longer compiles or no longer prints what the page says fails
the suite. A ```sh block preceded by such a line is checked the same way
against a script's region between "# [snippet:NAME]" and "# [end]" (a job
script the tests submit); other ```sh blocks are commands, not quotes.
"""
import pathlib
import re
import sys
import textwrap

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
marker = re.compile(r"<!--\s*snippet:\s*(\S+)#(\S+)\s*-->")


def region(path, name, comment="//"):
    lines = (root / path).read_text().splitlines()
    start = f"{comment} [snippet:{name}]"
    try:
        i = next(n for n, line in enumerate(lines) if line.strip() == start)
    except StopIteration:
        return None
    j = next(n for n in range(i + 1, len(lines)) if lines[n].strip() == f"{comment} [end]")
    return textwrap.dedent("\n".join(lines[i + 1 : j])).strip("\n")


problems = []
checked = 0
pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
for page in pages:
    lines = page.read_text().splitlines()
    n = 0
    while n < len(lines):
        fence = lines[n].strip()
        m = marker.search(lines[n - 1]) if n > 0 else None
        # C++ blocks must quote; sh blocks quote only when marked.
        comment = "//" if fence in ("```cpp", "```c++") else "#" if fence == "```sh" and m else None
        if comment:
            where = f"{page.relative_to(root)}:{n + 1}"
            end = next(k for k in range(n + 1, len(lines)) if lines[k].strip() == "```")
            block = textwrap.dedent("\n".join(lines[n + 1 : end])).strip("\n")
            if not m:
                problems.append(f"{where}: C++ block without a <!-- snippet: PATH#NAME --> line")
            else:
                quoted = region(m.group(1), m.group(2), comment)
                if quoted is None:
                    problems.append(f"{where}: no region {m.group(2)} in {m.group(1)}")
                elif quoted != block:
                    problems.append(f"{where}: block differs from {m.group(1)}#{m.group(2)}")
                checked += 1
            n = end
        n += 1

for p in problems:
    print(p)
print(f"{checked} snippets checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
