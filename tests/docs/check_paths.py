#!/usr/bin/env python3
"""Docs name only files that exist, and docs/design.md's file table is the
tree: a row for every folder under src/ and include/ that holds files, and
for nothing else.

A path is a code span in README.md or docs/ that starts with one of the
repository's top-level directories (src/, include/, tests/, ...) or is a
top-level file; `a/b.{h,cc}` names both. In the table's first column a
folder ends with a slash.

  check_paths.py ROOT [PAGE...]   (default pages: README.md and docs/**/*.md)
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
pages = [pathlib.Path(p) for p in sys.argv[2:]] or \
    [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
top_dirs = ("src/", "include/", "tests/", "docs/", "bench/", "scripts/", "examples/", "cmake/", ".ci/")
top_files = {"CMakeLists.txt", "CMakePresets.json", "README.md"}
# Where the installed package puts things: named by the docs, not in the tree.
installed = ("include/ferry/",)


def expand(path):
    m = re.match(r"(.*)\{([^}]*)\}(.*)", path)
    if not m:
        return [path]
    return [m.group(1) + alt + m.group(3) for alt in m.group(2).split(",")]


problems = []
for page in pages:
    text = page.read_text()
    name = page.relative_to(root) if page.is_relative_to(root) else page
    for span in re.findall(r"`([^`\n]+)`", text):
        word = span.split()[0] if span.split() else ""
        word = word[2:] if word.startswith("./") else word
        word = word.split("#", 1)[0].rstrip(",.:;)")
        if not (word.startswith(top_dirs) or word in top_files) or word.startswith(installed):
            continue
        if any(c in word for c in "*<>$"):
            continue  # a pattern, not a path
        for path in expand(word):
            if not (root / path).exists():
                problems.append(f"{name}: `{span}` names {path}, which does not exist")

design = root / "docs" / "design.md"
if design in pages:
    # The Files table has a row per folder: each folder under src/ and
    # include/ that holds files has its row, and a row names only folders
    # that exist.
    listed = set()
    in_files = False
    for line in design.read_text().split("\n"):
        if line.startswith("## "):
            in_files = line == "## Files"
        if in_files and line.startswith("| `"):
            listed.update(t for t in re.findall(r"`([^`]+)`", line.split("|")[1]) if t.endswith("/"))
    tree = {str(p.parent.relative_to(root)) + "/" for d in ("src", "include")
            for p in (root / d).rglob("*") if p.is_file()}
    for folder in sorted(tree - listed):
        problems.append(f"docs/design.md: the file table has no row for {folder}")
    for folder in sorted(listed - tree):
        problems.append(f"docs/design.md: the file table has a row for {folder}, which holds no file under src/ or include/")

for p in problems:
    print(p)
print(f"{len(problems)} problems")
sys.exit(1 if problems else 0)
