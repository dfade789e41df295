#!/usr/bin/env python3
"""A pool's timeline as a person sees it: tests/executor/timeline.cpp writes a
trace (pool_options::trace); the trace is a Chrome trace-event file with a
span for every task, and its page, opened in headless Chromium (Debian's
chromium), draws one bar per span, the failed and the thrown ones marked, on
one row per worker.

    timeline_test.py PROGRAM [--screenshot PNG]

With --screenshot, the page is also saved as PNG (scripts/timeline_picture.sh
makes docs/images/timeline.png so), with the page's summary of the run in the
PNG's Description text, and printed as "summary: ...": the words the docs
say of the picture come from the run it shows (tests/docs/check_pictures.py).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

program = sys.argv[1]
screenshot = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
browser = shutil.which("chromium")
if browser is None:
    print("SKIP: no chromium (scripts/install_deps.sh chromium installs it)")
    sys.exit(77)

failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)


def add_png_text(path, key, text):
    """Adds a tEXt chunk KEY=TEXT to the PNG at PATH, after its header chunk."""
    with open(path, "rb") as f:
        png = f.read()
    data = key.encode("latin-1") + b"\0" + text.encode("latin-1")
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data + struct.pack(">I", zlib.crc32(b"tEXt" + data))
    end_of_header = 8 + 8 + 13 + 4  # signature, IHDR's length and type, its 13 bytes, its CRC
    with open(path, "wb") as f:
        f.write(png[:end_of_header] + chunk + png[end_of_header:])


tmp = tempfile.mkdtemp()
try:
    trace_path = os.path.join(tmp, "run.json")
    page_path = os.path.join(tmp, "run.html")
    p = subprocess.run([program, trace_path], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"the program failed: {p.returncode} {p.stderr}")
    check(p.stdout.strip() == str(120 + sum(20 + 10 * (i % 3) for i in range(10) if i != 4)),
          f"its results: {p.stdout!r}")
    with open(trace_path) as f:
        trace = json.load(f)
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    rows = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}
    statuses = [s["args"]["status"] for s in spans]
    check(len(spans) == 12, f"{len(spans)} spans in the trace, expected 12")
    check(statuses.count("failed") == 1 and statuses.count("threw") == 1,
          f"statuses in the trace: {statuses}")
    check(any(s["name"] == "the long one" and s["dur"] >= 100_000 for s in spans),
          "the named 120 ms task is not in the trace as such")
    check(2 <= len(rows) <= 3 and all(re.fullmatch(r"worker \d+", n) for n in rows.values()),
          f"rows: {rows}")
    check(all(s["tid"] in rows for s in spans), "a span on a row with no name")
    failed = [s for s in spans if s["args"]["status"] == "failed"][0]
    check("signal 11" in failed["args"]["error"], f"the failed span says {failed['args']['error']!r}")
    # Per row, no two spans overlap: a worker runs one task at a time.
    for tid in rows:
        mine = sorted((s["ts"], s["ts"] + s["dur"]) for s in spans if s["tid"] == tid)
        check(all(a[1] <= b[0] + 1 for a, b in zip(mine, mine[1:])), f"overlapping spans on row {rows[tid]}")

    with open(page_path) as f:
        page = f.read()
    check("http" not in page.replace("http://www.w3.org/2000/svg", ""), "the page refers to the network")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             f"--user-data-dir={os.path.join(tmp, 'profile')}"]
    dom = subprocess.run([browser, *flags, "--dump-dom", "file://" + page_path],
                         capture_output=True, text=True, timeout=90).stdout
    bars = re.findall(r'<rect class="span( [a-z]+)?"', dom)
    check(len(bars) == len(spans), f"the page drew {len(bars)} bars for {len(spans)} spans")
    check(bars.count(" failed") == 1 and bars.count(" threw") == 1,
          f"marked bars: {[b for b in bars if b]}")
    labels = re.findall(r'<text class="row-label"[^>]*>([^<]*)</text>', dom)
    check(sorted(labels) == sorted(rows.values()), f"row labels {labels}, trace rows {list(rows.values())}")
    summary = re.search(r">(12 tasks on \d rows, 1 failed, 1 threw, [0-9.]+ ms)<", dom)
    check(summary is not None, "the summary line is missing or wrong")
    if screenshot and summary:
        height = 140 + 22 * len(rows)  # the summary, the legend, the ticks and a row per lane
        subprocess.run([browser, *flags, f"--screenshot={os.path.abspath(screenshot)}",
                        f"--window-size=1120,{height}", "file://" + page_path], capture_output=True, timeout=90)
        check(os.path.exists(screenshot), "no screenshot")
        if os.path.exists(screenshot):
            add_png_text(screenshot, "Description", summary.group(1))
            print("summary:", summary.group(1))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

for f in failures:
    print("FAILED:", f)
print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
