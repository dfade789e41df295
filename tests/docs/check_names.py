#!/usr/bin/env python3
"""Keeps the docs and the code naming the same things.

Fails when README.md or a page under docs/ names
  - a ferry:: identifier that the code does not declare,
  - a start_method:: value, or a pool_options field in the options table of
    docs/api/executor.md, that does not exist,
  - a CMake target or FERRY_* option/variable that neither CMake nor the code has;
when a public name declared in include/ (outside detail and internal/)
appears on no page of docs/api; and when a measured number (a duration, a
rate, a ratio) stands in a section that shows no command to reproduce it
(a number on a line naming the code constant it documents is not a
measurement).
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
problems = []


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def drop_namespace(text, name):
    """Removes `namespace NAME { ... }` blocks (brace-matched)."""
    out, i = [], 0
    pattern = re.compile(r"namespace\s+(?:\w+::)*" + name + r"\s*\{")
    while True:
        m = pattern.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while depth and j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j


headers = sorted((root / "include").rglob("*.h"))
code_text = {h: strip_comments(h.read_text()) for h in headers}
all_code_words = set()
for t in code_text.values():
    all_code_words |= set(re.findall(r"\w+", t))
src_words = set()
for f in list((root / "src").rglob("*.cc")) + list((root / "src").rglob("*.h")):
    src_words |= set(re.findall(r"\w+", f.read_text()))
# The project's own CMake (not the tests', which name things only to test them):
# the top-level file and each library's beside its code.
cmake_text = (root / "CMakeLists.txt").read_text()
cmake_text += "\n".join(p.read_text() for p in sorted((root / "src").rglob("CMakeLists.txt")))
cmake_text += "\n".join(p.read_text() for p in (root / "cmake").glob("*"))
# Cache variables the tests' own CMake files define (FERRY_FUZZ_SECONDS) are options too; only
# their definitions count, as those files also quote the planted mistakes.
for p in (root / "tests").rglob("CMakeLists.txt"):
    cmake_text += "\n" + "\n".join(re.findall(r"set\((FERRY_\w+) [^)]*\bCACHE\b", p.read_text()))
# Variables the scripts read ("${FERRY_TEST_JOBS:-3}") are settings too.
for p in (root / "scripts").glob("*.sh"):
    cmake_text += "\n" + "\n".join(re.findall(r"\$\{?(FERRY_\w+)", p.read_text()))
cmake_targets = set(re.findall(r"add_library\((\S+)\s+ALIAS\s+\S+\)", cmake_text))
cmake_targets |= set(re.findall(r"add_executable\(([\w-]+)", cmake_text))

# Public names: declared in include/serialize and include/executor, outside
# detail namespaces and internal/ headers.
public = set()
for h, t in code_text.items():
    if "internal" in h.parts:
        continue
    t = drop_namespace(t, "detail")
    t = re.sub(r"\bprivate:.*?(?=\bpublic:|\n\};|\n  \};)", "", t, flags=re.S)
    public |= set(re.findall(r"\b(?:class|struct|enum class)\s+(?:FERRY_\w+_EXPORT\s+|FERRY_HIDDEN\s+)?(\w+)\s*[:{;]", t))
    public |= set(re.findall(r"(?:FERRY_\w+_EXPORT|inline|auto|void|bool|std::size_t|T|R)\s+[\w:<>,\s&*]*?\b(\w+)\s*\(", t))
    public |= set(re.findall(r"\btemplate\s*<[^>]*>\s*[\w:<>,\s&*]*?\b(\w+)\s*\(", t))
skip = {"operator", "iterator", "begin", "end", "save", "load", "serialize", "saveBinary", "loadBinary", "if", "for", "while",
        "return", "switch", "sizeof", "decltype", "static_assert", "requires", "noexcept",
        "ferry_save", "ferry_load", "CEREAL_REGISTER_ARCHIVE", "CEREAL_SETUP_ARCHIVE_TRAITS"}
public = {n for n in public if n not in skip and not n.startswith("_") and not n.isupper()}

pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
pages += [pathlib.Path(p).resolve() for p in sys.argv[2:]]  # extra pages, for the checker's own test
api_text = "\n".join(p.read_text() for p in sorted((root / "docs" / "api").glob("*.md")))
api_words = set(re.findall(r"\w+", api_text))

for name in sorted(public):
    if name not in api_words:
        problems.append(f"public name '{name}' (include/) appears on no docs/api page")

def struct_fields(header, name):
    # The struct ends at a "};" that opens its line: a field's "{};" does not end it.
    body = re.search(r"struct " + name + r"\s*\{(.*?)\n\};", code_text[root / header], re.S).group(1)
    return (set(re.findall(r"(\w+)\s*=[^=]", body)) | set(re.findall(r"(\w+);", body)) |
            set(re.findall(r"(\w+)\{[^{}]*\};", body)))


# The tables of docs/api/executor.md whose first column is a struct's fields,
# by the first cell of their header row.
option_tables = {
    "field": ("pool_options", struct_fields("include/executor/pool_options.h", "pool_options")),
    "shutdown_options field": ("shutdown_options",
                               struct_fields("include/executor/shutdown_options.h", "shutdown_options")),
    "mpi_pool_options field": ("mpi_pool_options",
                               struct_fields("include/executor/mpi_pool.h", "mpi_pool_options")),
}
start_methods = code_text[root / "include/executor/start_method.h"]
enumerators = re.sub(r"//[^\n]*", "", re.search(r"enum class start_method\s*\{(.*?)\}", start_methods, re.S).group(1))
methods = set(re.findall(r"\b(\w+)\s*(?:,|$)", enumerators.strip()))

measure = re.compile(r"\d[\d.,]*\s*(?:ns|µs|us|ms|s|GB/s|MB/s|GiB/s|MiB/s|ops/s|tasks/s|items/s|msg/s)(?![\w/])|\b\d+(?:\.\d+)?x\b")
for page in pages:
    rel = page.relative_to(root) if page.is_relative_to(root) else page
    text = page.read_text()
    in_code = False
    section_lines = []

    def check_section(lines):
        has_command = any(re.search(r"`(\./)?(scripts|bench|tests|build)/[\w./-]+", l) and
                          any((root / m.lstrip("./")).exists() for m in re.findall(r"`((?:\./)?(?:scripts|bench|tests)/[\w./-]+)", l))
                          for _, l in lines)
        for n, l in lines:
            if not measure.search(l) or has_command:
                continue
            named = [w for w in re.findall(r"`([\w:]+)`", l) if w.split("::")[-1] in all_code_words | src_words]
            if not named:
                problems.append(f"{rel}:{n}: a measured number with no command to reproduce it: {l.strip()[:80]}")

    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if line.startswith("#") and not in_code:
            check_section(section_lines)
            section_lines = []
        if in_code:
            continue
        section_lines.append((n, line))
        for ident in re.findall(r"\bferry::([\w:]+)", line):
            whole = "ferry::" + ident
            if whole in cmake_targets:
                continue
            for part in ident.split("::"):
                if part and part not in all_code_words:
                    problems.append(f"{rel}:{n}: ferry::{ident}: '{part}' is declared nowhere in include/")
        for m in re.findall(r"start_method::(\w+)", line):
            if m not in methods:
                problems.append(f"{rel}:{n}: start_method::{m} does not exist")
        for opt in re.findall(r"\bFERRY_[A-Z_]+\b", line):
            if opt not in cmake_text and opt not in all_code_words and opt not in src_words:
                problems.append(f"{rel}:{n}: {opt} is neither a CMake option nor used by the code")
        for tgt in re.findall(r"`(ferry-[\w-]+)`", line):
            if tgt not in cmake_targets:
                problems.append(f"{rel}:{n}: {tgt} is not a target")
        if rel.as_posix() in ("docs/api/executor.md", "docs/api/mpi.md"):
            m = re.match(r"\|\s*`(\w+)`\s*\|", line)
            headers = [re.match(r"\|\s*([^|]*?)\s*\|", l).group(1) for _, l in section_lines
                       if re.match(r"\|\s*([^|`]*?)\s*\|", l)]
            table = next((option_tables[h] for h in reversed(headers) if h in option_tables), None)
            if m and table and m.group(1) not in table[1]:
                problems.append(f"{rel}:{n}: {table[0]} has no field '{m.group(1)}'")
    check_section(section_lines)

for p in problems:
    print(p)
print(f"{len(public)} public names, {len(pages)} pages checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
