#!/usr/bin/env bash
# How rank 0's cost grows with the number of agents: `mpi_bench hosts N`
# (bench/mpi_bench.cc) over 1, 2, 4 and 8 hosts simulated on this machine
# (scripts/simulated_cluster.sh: one agent with one worker on each), in one
# run; prints a table of tasks/s and rank 0's CPU, idle and per task. Root
# only (network namespaces).
#   scripts/bench_mpi_hosts.sh [N...]     (default: 1 2 4 8)
set -euo pipefail
counts=${*:-1 2 4 8}
set --  # bench_build.sh installs its arguments: none here
source "$(dirname "$0")/bench_build.sh"
source "$root/scripts/simulated_cluster.sh"
trap 'cluster_down; rm -rf "$out"' EXIT
echo "machine: $(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%d), $(mpirun --version | head -1)" >&2
for k in $counts; do
  cluster_up "$k" >&2 || exit
  cluster_run mpirun "$build/bench/mpi_bench" hosts "$k" >>"$out/hosts.jsonl"
  cluster_down
done
python3 - "$out/hosts.jsonl" <<'PY'
import json, re, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("{"):
        m = json.loads(line)
        name, agents = re.match(r"(.*)_h(\d+)$", m["name"]).groups()
        rows.setdefault(int(agents), {})[name] = m["value"]
print("| agents (one worker each) | tasks/s, 20 000 no-op submits | rank 0 CPU per task | rank 0 CPU while idle |")
print("|---|---|---|---|")
for agents in sorted(rows):
    r = rows[agents]
    print(f"| {agents} | {r.get('mpi_hosts_tasks_per_s', 0):.4g} | {r.get('mpi_hosts_rank0_cpu_per_task', 0):.3g} us "
          f"| {r.get('mpi_hosts_rank0_idle_cpu', 0):.3g} % |")
PY
