#!/usr/bin/env bash
# Builds ferry in Release and compares, in one run on this host, ferry's MPI
# pool (bench/mpi_bench.cc) with mpi4py.futures (Debian's python3-mpi4py,
# run with /usr/bin/python3 -m mpi4py.futures: bench/mpi4py_bench.py) and
# with ferry's process pool (bench/executor_bench.cc), each MPI job under
# `mpirun -n 3`: rank 0, one node agent (mpi4py: two workers), one more rank.
# As root, it then runs the same across two hosts simulated on this machine
# (scripts/simulated_hosts.sh): rank 0 on the first, the agent with two
# workers (mpi4py: two worker ranks) on the second, where the directory of
# the module that `mpi_bench ship on` ships is hidden. On both, plain MPI's
# ping-pong between two ranks (bench/mpi_pingpong.cc) is the floor under
# the round trip and under the 64 MiB round trip (`mpi_bench large`). On
# one host, the round trips run again while a shell loop it starts and
# stops keeps one CPU busy (the "_busy" table), and while three do (the
# "_busy3" table).
#   scripts/bench_mpi.sh
set -euo pipefail
source "$(dirname "$0")/bench_build.sh" python3-mpi4py
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
echo "machine: $(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%d), $(mpirun --version | head -1)" >&2
# The round trip's median moves with where the scheduler places the ranks
# and with what else the machine does: five jobs of each side, ferry's and
# its peer's in turn, and the table shows the median of the five.
round_trips=5
round_trip_jobs() {  # SUFFIX of the files they write
  for _ in $(seq $round_trips); do
    timeout 300 "${mpirun[@]}" -n 3 "$build/bench/mpi_bench" roundtrip >>"$out/ferry_mpi$1.jsonl"
    timeout 300 "${mpirun[@]}" -n 3 /usr/bin/python3 -m mpi4py.futures "$root/bench/mpi4py_bench.py" roundtrip \
      >>"$out/mpi4py$1.jsonl"
    "$build/bench/executor_bench" roundtrip >>"$out/process_pool$1.jsonl"
  done
}
round_trip_jobs ""
# The same round trips with one CPU kept busy by another process for the
# whole pass: a pool whose waiting relies on yields and short sleeps is the
# one that moves (the _busy table); then with three such processes on the
# machine's two CPUs (the _busy3 table), as a user's job meets a loaded host.
busy_pids=()
start_busy() {  # N processes
  for _ in $(seq "$1"); do
    sh -c 'while :; do :; done' &
    busy_pids+=($!)
  done
}
stop_busy() {
  for pid in "${busy_pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  busy_pids=()
}
trap 'stop_busy; rm -rf "$out"' EXIT
start_busy 1
round_trip_jobs _busy
stop_busy
start_busy 3
round_trip_jobs _busy3
stop_busy
timeout 120 "${mpirun[@]}" -n 2 "$build/bench/mpi_pingpong" >>"$out/ferry_mpi.jsonl"
for args in "throughput 1" "throughput 2" "throughput 2 fixed" idle "ship on" "ship off" large; do
  timeout 300 "${mpirun[@]}" -n 3 "$build/bench/mpi_bench" $args >>"$out/ferry_mpi.jsonl"
done
for mode in throughput idle; do
  timeout 300 "${mpirun[@]}" -n 3 /usr/bin/python3 -m mpi4py.futures "$root/bench/mpi4py_bench.py" "$mode" \
    >>"$out/mpi4py.jsonl"
done
for mode in throughput start large; do
  "$build/bench/executor_bench" "$mode" >>"$out/process_pool.jsonl"
done
python3 "$root/bench/compare_mpi.py" "$out"
echo
echo "one host, one CPU kept busy by another process:"
python3 "$root/bench/compare_mpi.py" "$out" _busy
echo
echo "one host, three busy processes on its two CPUs:"
python3 "$root/bench/compare_mpi.py" "$out" _busy3

source "$root/scripts/simulated_hosts.sh"
trap 'stop_busy; hosts_down; rm -rf "$out"' EXIT
if hosts_up "$build/bench/ship" >&2; then
  for _ in $(seq $round_trips); do
    hosts_run 1 1 "${mpirun[0]}" "$build/bench/mpi_bench" roundtrip >>"$out/ferry_mpi_2h.jsonl"
    hosts_run 1 2 "${mpirun[0]}" /usr/bin/python3 -m mpi4py.futures "$root/bench/mpi4py_bench.py" roundtrip \
      >>"$out/mpi4py_2h.jsonl"
  done
  hosts_run 1 1 "${mpirun[0]}" "$build/bench/mpi_pingpong" >>"$out/ferry_mpi_2h.jsonl"
  for args in "throughput 1" "throughput 2" idle "ship on" large; do
    hosts_run 1 1 "${mpirun[0]}" "$build/bench/mpi_bench" $args >>"$out/ferry_mpi_2h.jsonl"
  done
  for mode in throughput idle; do
    hosts_run 1 2 "${mpirun[0]}" /usr/bin/python3 -m mpi4py.futures "$root/bench/mpi4py_bench.py" "$mode" \
      >>"$out/mpi4py_2h.jsonl"
  done
  echo
  echo "two simulated hosts:"
  python3 "$root/bench/compare_mpi.py" "$out" _2h
fi
