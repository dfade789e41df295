#!/usr/bin/env python3
"""Cuts perf script's lines (comm, tid, cpu, time in ns, event) of
`executor_bench roundtrip` and of `executor_bench pingpong` into the
segments of a round trip and prints each one's median, from
scripts/trace_roundtrip.sh.

    bench/roundtrip_trace.py ROUNDTRIP_TXT PINGPONG_TXT

ferry: the caller is the benchmark's thread that sends the most messages;
the worker runs as `exe` (started through /proc/self/exe).
"""
import collections
import re
import statistics
import sys

line_format = re.compile(r"\s*(\S+)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):")


def events(path):
    out = []
    for line in open(path):
        m = line_format.match(line)
        if m and m.group(1) != "perf":  # perf's own writes of what it records
            comm, tid, cpu, t, event = m.groups()
            out.append((float(t) * 1e6, comm, int(tid), int(cpu), event.split(":")[1]))
    out.sort()
    return out


def median(values):
    return f"{statistics.median(values):6.2f} us (n = {len(values)})" if values else "none seen"


def ferry(path):
    ev = events(path)
    sends = collections.Counter(tid for _, comm, tid, _, e in ev if comm != "exe" and e == "sys_exit_sendmsg")
    caller = sends.most_common(1)[0][0]
    seg = collections.defaultdict(list)
    sent = woken = answered = got = None
    for t, comm, tid, cpu, e in ev:
        if tid == caller and e == "sys_exit_sendmsg":
            if sent and got:
                seg["the caller: its result read to its next task sent"].append(t - got)
                seg["the whole round trip"].append(t - sent[0])
            sent, woken, answered, got = (t, cpu), None, None, None
        elif comm == "exe" and e in ("sys_exit_recvmsg", "sys_exit_poll") and sent and woken is None:
            # The worker sleeps in a blocking read of its tasks' socket
            # (src/executor/worker/task_server.cc); poll, where it waits with a
            # timeout (a heap to give back, pool_options::spin).
            woken = t
            where = "on the caller's CPU" if cpu == sent[1] else "on the other CPU"
            seg[f"the worker's wake-up, {where}: task sent to its read returned"].append(t - sent[0])
        elif comm == "exe" and e == "sys_exit_sendmsg" and woken is not None and answered is None:
            answered = t
            seg["the worker: its read returned to its result sent"].append(t - woken)
        elif tid == caller and e == "sys_exit_recvmsg" and answered is not None and got is None:
            got = t
            seg["the result's way back: sent to the caller's read returned"].append(t - answered)
    print("submit(noop).get(), one worker, traced:")
    for name, values in seg.items():
        print(f"  {name:66s} {median(values)}")


def floor(path):
    ev = events(path)
    writers = [tid for tid, _ in collections.Counter(
        tid for _, _, tid, _, e in ev if e == "sys_exit_write").most_common(2)]
    half, same, last = [], 0, None
    for t, _, tid, cpu, e in ev:
        if tid not in writers:
            continue
        if e == "sys_exit_write":
            last = (t, tid, cpu)
        elif e == "sys_exit_read" and last and last[1] != tid:
            half.append(t - last[0])
            same += cpu == last[2]
            last = None
    print("the floor, a blocking socketpair ping-pong, traced:")
    print(f"  {'a half trip: written to the other end read returned':66s} {median(half)}")
    if half:
        print(f"  {'half trips whose two ends ran on one CPU':66s} {same / len(half):6.0%}")


ferry(sys.argv[1])
floor(sys.argv[2])
