#!/usr/bin/env bash
# What including ferry costs a user's translation unit: the CPU seconds g++
# takes to parse one that includes <executor/executor.h>, against one that
# includes <future> and <thread> (median of 5 runs each, -std=c++20
# -fsyntax-only, as ferry's build compiles), the ratio of the two, and the
# preprocessed lines of each. A third unit is the floor under the first:
# the standard headers whose types ferry's API names, and cereal's core and
# binary archive, which any unit that encodes a closure's captures through
# cereal parses. Then what each of the costliest parts of ferry's headers
# adds to that floor.
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
f=$(median "$work/ferry.cc")
s=$(median "$work/std.cc")
c=$(median "$work/floor.cc")
lines() { "$cxx" -std=c++20 -I "$root/include" -E "$1" | wc -l; }
echo "<executor/executor.h>: $f s, $(lines "$work/ferry.cc") lines"
echo "<future> and <thread>: $s s, $(lines "$work/std.cc") lines"
echo "floor (std types and cereal's core): $c s, $(lines "$work/floor.cc") lines"
awk -v f="$f" -v s="$s" -v c="$c" 'BEGIN { printf "ratio: %.1fx (the floor alone: %.1fx)\n", f / s, c / s }'
for part in serialize/std_types.h cereal/types/memory.hpp filesystem ranges; do
  { cat "$work/floor.cc"; echo "#include <$part>"; } >"$work/part.cc"
  awk -v p="$part" -v a="$(median "$work/part.cc")" -v c="$c" 'BEGIN { printf "the floor and <%s>: +%.2f s\n", p, a - c }'
done
