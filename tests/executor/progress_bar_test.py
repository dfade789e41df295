#!/usr/bin/env python3
"""A map's progress bar as a person sees it: tests/executor/progress_bar.cpp
run with stderr on a pseudo-terminal (the bar is drawn and ends at 100%), on
a pipe (nothing is drawn), and on a pipe in an MPI rank's environment (the
launcher's pipe: drawn).

    progress_bar_test.py PROGRAM
"""
import os
import pty
import re
import select
import subprocess
import sys
import time

program = sys.argv[1]
expected_sum = str(sum(i * i for i in range(300)))
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)


def on_terminal(mode):
    """Runs the program with stderr on a pty; returns (stdout, terminal output)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([program, mode], stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    screen = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the pty closed: the program ended
                break
            if not chunk:
                break
            screen += chunk
        elif p.poll() is not None:
            break
    out = p.communicate(timeout=max(1, deadline - time.monotonic()))[0].decode()
    os.close(master)
    return p.returncode, out, screen.decode(errors="replace")


for mode in ("ordered", "unordered"):
    rc, out, screen = on_terminal(mode)
    check(rc == 0, f"{mode}: exit status {rc}")
    check(out.strip() == expected_sum, f"{mode}: stdout {out!r}, expected {expected_sum}")
    draws = [d for d in re.split(r"[\r\n]", screen) if d.startswith("ferry map")]
    check(len(draws) >= 3, f"{mode}: the bar was drawn {len(draws)} times: {screen!r}")
    check(any("left" in d and "%" in d for d in draws[:-1]), f"{mode}: no estimate while running: {draws!r}")
    last = draws[-1] if draws else ""
    check(re.match(r"ferry map 100% \[#{20}\] 300/300  [0-9.]+k?/s  0:0\d elapsed", last) is not None,
          f"{mode}: the last draw is {last!r}")
    check(screen.rstrip("\r\n").endswith("elapsed\x1b[K") or screen.endswith("\n"),
          f"{mode}: the line is not ended: {screen[-80:]!r}")
    percents = [int(m.group(1)) for m in (re.match(r"ferry map\s+(\d+)%", d) for d in draws) if m]
    check(percents == sorted(percents), f"{mode}: the bar went back: {percents}")

rc, out, screen = on_terminal("endless")
check(rc == 0, f"endless: exit status {rc}")
draws = [d for d in re.split(r"[\r\n]", screen) if d.startswith("ferry map")]
check(bool(draws) and re.match(r"ferry map \d+  [0-9.]+k?/s  0:0\d elapsed", draws[-1]) is not None,
      f"endless: no count-only bar: {draws[-1:]!r}")
check(not any("%" in d for d in draws), "endless: a percentage without a known size")

p = subprocess.run([program, "ordered"], capture_output=True, timeout=60)
check(p.returncode == 0 and p.stdout.decode().strip() == expected_sum, f"pipe: {p.returncode} {p.stdout!r}")
check(p.stderr == b"", f"pipe: something was drawn on a stderr that is not a terminal: {p.stderr[:200]!r}")

# A rank of an MPI job (PMIX_RANK, as mpirun and srun set it): its stderr is
# the launcher's pipe, which relays it; the bar is drawn there, and ended.
p = subprocess.run([program, "ordered"], capture_output=True, timeout=60, env=dict(os.environ, PMIX_RANK="0"))
draws = [d for d in re.split(r"[\r\n]", p.stderr.decode(errors="replace")) if d.startswith("ferry map")]
check(p.returncode == 0 and p.stdout.decode().strip() == expected_sum, f"launcher: {p.returncode} {p.stdout!r}")
check(bool(draws) and draws[-1].startswith("ferry map 100% [####################] 300/300"),
      f"launcher: the bar was not drawn on the launcher's pipe: {p.stderr[-200:]!r}")
check(p.stderr.endswith(b"\n"), f"launcher: the line is not ended: {p.stderr[-80:]!r}")

for f in failures:
    print("FAILED:", f)
print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
