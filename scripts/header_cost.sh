#!/usr/bin/env bash
# What including ferry costs a user's translation unit: the CPU seconds g++
# takes to parse one that includes <executor/executor.h>, against one that
# includes <future> and <thread> (median of 5 runs each, -std=c++20
# -fsyntax-only, as ferry's build compiles), the ratio of the two, and the
# preprocessed lines of each. A third unit is the floor under the first:
# the standard headers whose types ferry's API names, and cereal's core and
# binary archive, which any unit that encodes a closure's captures through
# cereal parses; a fourth, <future> and <thread> with cereal's core alone
# (<cereal/cereal.hpp>, which cereal's archives all include). Then what each
# of the costliest parts of ferry's headers adds to that floor. Beside each
# time, the memory GCC allocated for the unit (-ftime-report), which does
# not vary from run to run as CPU time does.
#   scripts/header_cost.sh [COMPILER]   (default g++)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cxx=${1:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo '#include <executor/executor.h>' >"$work/ferry.cc"
printf '#include <future>\n#include <thread>\n' >"$work/std.cc"
{
  cat "$work/std.cc"
  for h in coroutine functional map memory optional string unordered_map unordered_set vector \
           cereal/cereal.hpp cereal/archives/binary.hpp; do
    echo "#include <$h>"
  done
} >"$work/floor.cc"
median() {  # FILE: the median user+system seconds of 5 parses
  for _ in 1 2 3 4 5; do
    /usr/bin/time -f "%U %S" "$cxx" -std=c++20 -I "$root/include" -fsyntax-only "$1" 2>&1 >/dev/null |
      awk '{printf "%.2f\n", $1 + $2}'
  done | sort -n | sed -n 3p
}
{ cat "$work/std.cc"; echo '#include <cereal/cereal.hpp>'; } >"$work/cereal.cc"
f=$(median "$work/ferry.cc")
s=$(median "$work/std.cc")
c=$(median "$work/floor.cc")
k=$(median "$work/cereal.cc")
lines() { "$cxx" -std=c++20 -I "$root/include" -E "$1" | wc -l; }
memory() {  # FILE: GCC's allocated memory for it, as -ftime-report totals it
  "$cxx" -std=c++20 -I "$root/include" -fsyntax-only -ftime-report "$1" 2>&1 | awk '/TOTAL/ { print $NF }'
}
echo "<executor/executor.h>: $f s, $(lines "$work/ferry.cc") lines, $(memory "$work/ferry.cc")"
echo "<future> and <thread>: $s s, $(lines "$work/std.cc") lines, $(memory "$work/std.cc")"
echo "floor (std types and cereal's core): $c s, $(lines "$work/floor.cc") lines, $(memory "$work/floor.cc")"
echo "<future>, <thread> and cereal's core alone: $k s, $(lines "$work/cereal.cc") lines, $(memory "$work/cereal.cc")"
awk -v f="$f" -v s="$s" -v c="$c" -v k="$k" 'BEGIN {
  printf "ratio: %.1fx (the floor alone: %.1fx; cereal'"'"'s core alone: %.2fx)\n", f / s, c / s, k / s }'
for part in serialize/std_types.h cereal/types/memory.hpp filesystem ranges; do
  { cat "$work/floor.cc"; echo "#include <$part>"; } >"$work/part.cc"
  awk -v p="$part" -v a="$(median "$work/part.cc")" -v c="$c" 'BEGIN { printf "the floor and <%s>: +%.2f s\n", p, a - c }'
done
