#!/usr/bin/env bash
# Kills a pool's parent with SIGKILL while its workers run long tasks; every
# worker must be gone within 5 seconds.
set -u
helper=$1 method=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$helper" "$method" >"$out" &
parent=$!
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
read -r -a pids <"$out"
if [ ${#pids[@]} -ne 2 ]; then echo "FAIL: no worker pids printed"; kill -9 "$parent"; exit 1; fi
echo "parent $parent, workers ${pids[*]}"
kill -9 "$parent"
wait "$parent" 2>/dev/null
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
for _ in $(seq 50); do
  left=0
  for p in "${pids[@]}"; do alive "$p" && left=$((left + 1)); done
  [ $left -eq 0 ] && { echo "PASS: all workers exited"; exit 0; }
  sleep 0.1
done
echo "FAIL: workers still alive after 5 s:"; for p in "${pids[@]}"; do alive "$p" && ps -o pid,ppid,cmd -p "$p"; done
for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
exit 1
