#!/usr/bin/env bash
# Where a round trip's time goes, between processes and CPUs: records the
# system calls that carry a task and its result, and the scheduler's
# wake-ups, of `executor_bench roundtrip` (one worker) and of its floor,
# `executor_bench pingpong` (a blocking socketpair ping-pong), with perf's
# tracepoints, then bench/roundtrip_trace.py prints the median of each
# segment: the caller's send to the worker's return from poll (its
# wake-up, apart by whether it ran on the caller's CPU or the other), the
# worker's work up to its send, the result's way back to the caller's read,
# and the caller's own work up to its next send; and, for the floor, each
# half trip and how often both ends shared a CPU. Each tracepoint adds its
# own cost to the system call it marks: compare segments with each other,
# not totals with executor_bench's untraced figures. With BUSY=1 a busy
# loop keeps one CPU occupied meanwhile.
#   scripts/trace_roundtrip.sh
set -euo pipefail
source "$(dirname "$0")/bench_build.sh" linux-perf
busy_if_asked
events=()
for call in sendmsg recvmsg poll write read; do
  events+=(-e "syscalls:sys_enter_$call" -e "syscalls:sys_exit_$call")
done
events+=(-e sched:sched_wakeup -e sched:sched_switch)
for mode in roundtrip pingpong; do
  perf record -q -a "${events[@]}" -o "$out/$mode.data" "$build/bench/executor_bench" "$mode" >"$out/$mode.jsonl" 2>/dev/null
  perf script --ns -i "$out/$mode.data" -F comm,tid,cpu,time,event 2>/dev/null >"$out/$mode.txt"
done
python3 "$root/bench/roundtrip_trace.py" "$out/roundtrip.txt" "$out/pingpong.txt"
