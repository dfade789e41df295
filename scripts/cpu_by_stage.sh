#!/usr/bin/env bash
# Where a no-op task's CPU goes, by stage: `executor_bench submits` (two
# bursts of 100 000 tasks, one submit each, 2 workers) under perf, sampling
# every process of the run (the caller's, its workers') every 100 us of CPU
# time they use, then bench/cpu_stages.py sorts the samples by where they
# fell (ferry's code, encoding, authentication, the kernel's wake-ups, its
# sockets, ...) and prints the CPU per task of each. With BUSY=1 a busy loop
# keeps one CPU occupied meanwhile (it is not sampled: perf follows only the
# benchmark and its children).
#   scripts/cpu_by_stage.sh
set -euo pipefail
source "$(dirname "$0")/bench_build.sh" linux-perf
busy_if_asked
perf record -q -e cpu-clock -c 100000 -g -o "$out/perf.data" \
  "$build/bench/executor_bench" submits >"$out/run.jsonl" 2>"$out/perf.log"
perf report -i "$out/perf.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null >"$out/report.txt"
python3 "$root/bench/cpu_stages.py" "$out/report.txt" "$out/run.jsonl" 100
