#!/usr/bin/env python3
"""Sorts a perf report's samples (perf report --no-children --sort dso,sym
--stdio -g none) into the stages of a task's life and prints each stage's
CPU per task, from scripts/cpu_by_stage.sh.

    bench/cpu_stages.py REPORT RUN_JSONL PERIOD_US

RUN_JSONL holds executor_bench submits' lines (submits_tasks: how many
tasks the profile covers); PERIOD_US is the CPU time one sample stands for.
"""
import json
import re
import sys

report, run, period_us = sys.argv[1], sys.argv[2], float(sys.argv[3])
values = {}
for line in open(run):
    if line.startswith("{"):
        r = json.loads(line)
        values[r["name"]] = r["value"]
tasks = values["submits_tasks"]

# Kernel symbols by what they do; the first pattern that matches wins.
KERNEL = [
    ("the kernel: wake-ups and scheduling (yields among them)",
     r"schedule|switch|wake|ttwu|enqueue|dequeue|update_curr|pick_next|idle|futex|select_task|psi_|"
     r"load_balance|update_load|_raw_spin_unlock_irq|sched|yield|hrtimer|tick|cpuacct|"
     r"native_write_msr|native_read_msr|restore_regs|set_next|check_preempt|reweight|newidle"),
    ("the kernel: sockets (buffers, copies, descriptors)",
     r"unix_|sock|skb|copy_|memcpy|memset|alloc|kmem|kfree|slab|iov|poll|epoll|fput|fget|fdget|"
     r"consume|mutex|refill|memcg|_raw_spin_lock|msghdr|sendmsg|recvmsg|check_object_size|"
     r"virt_addr_valid|scm_|__pv_queued_spin"),
    ("the kernel: page faults", r"page_fault|handle_mm|do_anonymous|filemap|folio|pte|lru"),
    ("the kernel: system call entry and exit",
     r"syscall|entry_|exit_to_user|irqentry|do_syscall|__x64|ret_from"),
]
LIBC_SYSCALLS = r"sendmsg|recvmsg|__libc_read|__libc_write|read$|write$|ppoll|poll|eventfd|sched_yield"
USER = [
    ("authentication (HMAC-SHA256)", lambda dso, sym: "libcrypto" in dso),
    ("encoding and decoding (ferry::serialize, cereal)", lambda dso, sym: "libferry_serialize" in dso),
    ("the pool: manager, futures, messages (ferry::executor)", lambda dso, sym: "libferry_executor" in dso),
    ("the worker's and the caller's programs", lambda dso, sym: "executor_bench" in dso),
    ("allocation (malloc, free)",
     lambda dso, sym: "libc" in dso and re.search(r"malloc|free|_int_|tcache|unlink_chunk|cfree", sym)),
    ("locks (pthread mutexes)", lambda dso, sym: "libc" in dso and re.search(r"pthread_mutex|mutex_unlock|lll_", sym)),
    ("system call wrappers (libc)", lambda dso, sym: "libc" in dso and re.search(LIBC_SYSCALLS, sym)),
    ("clocks (vDSO)", lambda dso, sym: "vdso" in dso),
    ("libc and libstdc++ (copies and the rest)",
     lambda dso, sym: "libc" in dso or "libstdc++" in dso or "libgcc" in dso),
]

stages = {}
total = 0.0
for line in open(report):
    m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[([.k])\]\s+(.*)$", line)
    if not m:
        continue
    share, dso, where, sym = float(m.group(1)), m.group(2), m.group(3), m.group(4).strip()
    total += share
    stage = None
    if where == "k" or dso.startswith("[kernel"):
        for name, pattern in KERNEL:
            if re.search(pattern, sym):
                stage = name
                break
        stage = stage or "the kernel: the rest"
    else:
        for name, test in USER:
            if test(dso, sym):
                stage = name
                break
        stage = stage or f"other ({dso})"
    stages[stage] = stages.get(stage, 0.0) + share

# cpu-clock counts nanoseconds: the report's event count is the CPU time
# sampled; its sample count ("36K") is rounded.
cpu_ns = samples = None
for line in open(report):
    m = re.match(r"# Event count \(approx\.\): (\d+)", line)
    if m:
        cpu_ns = int(m.group(1))
        break
if cpu_ns is None:
    sys.exit("no event count in the report")
samples = round(cpu_ns / 1000 / period_us)
cpu_us = cpu_ns / 1000
print(f"tasks: {tasks:.0f} (rate of the measured burst: {values.get('submits_tasks_per_s', 0):.4g} tasks/s)")
print(f"CPU per task, all processes: {cpu_us / tasks:.2f} us ({samples} samples of {period_us:g} us)")
print()
print("| stage | CPU per task | share |")
print("|---|---|---|")
for name, share in sorted(stages.items(), key=lambda kv: -kv[1]):
    print(f"| {name} | {cpu_us / tasks * share / total:.2f} us | {share / total * 100:.1f}% |")
