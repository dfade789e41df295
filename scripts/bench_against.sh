#!/usr/bin/env bash
# Whether a change moved a benchmark: builds the bench preset of COMMIT (in
# a temporary worktree) and of this tree, runs `executor_bench MODE` of
# each in turn, RUNS times (default 11), each side first every other time,
# and prints each row's medians and
# their ratio, this tree's over COMMIT's, all from one run. With BUSY=1 a
# busy loop keeps one CPU occupied meanwhile.
#   scripts/bench_against.sh COMMIT [MODE] [RUNS]   (MODE: throughput, roundtrip, ...)
set -euo pipefail
commit=$1 mode=${2:-throughput} runs=${3:-11}
set --  # bench_build.sh installs what it is given
source "$(dirname "$0")/bench_build.sh"
then_tree="$out/then"
git -C "$root" worktree add -q --detach "$then_tree" "$commit"
trap 'git -C "$root" worktree remove --force "$then_tree"; bench_cleanup' EXIT
FERRY_BUILD_DIR="$then_tree/build-bench" "$then_tree/scripts/build.sh" bench >/dev/null
busy_if_asked
# Each side goes first in every other round, so that neither gains from
# its place (a warmer cache, a CPU already at speed).
for i in $(seq "$runs"); do
  sides=(then now)
  ((i % 2)) || sides=(now then)
  for side in "${sides[@]}"; do
    if [ "$side" = then ]; then bench="$then_tree/build-bench/bench/executor_bench"; else bench="$build/bench/executor_bench"; fi
    "$bench" "$mode" | sed "s/^/$side /"
  done
done >"$out/runs.txt"
python3 - "$out/runs.txt" "$commit" <<'PY'
import collections, json, statistics, sys
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    side, text = line.split(" ", 1)
    j = json.loads(text)
    rows[j["name"]][side].append(j["value"])
print(f"{'row':34s} {sys.argv[2][:10]:>12s} {'this tree':>12s}  ratio")
for name, sides in rows.items():
    a, b = statistics.median(sides["then"]), statistics.median(sides["now"])
    ratio = f"{b / a:.3f}" if a else "-"  # a row that is 0 here (a thread that never ran)
    print(f"{name:34s} {a:12.4g} {b:12.4g}  {ratio}")
PY
