#!/usr/bin/env bash
# Copyright ferry authors.
#
# ferry-inspect's command line: each mistake is named on stderr with the
# usage and exit status 2, --help prints the usage with 0, and options may
# come before FILE. Usage: ferry_inspect_command_line.sh PATH_TO_FERRY_INSPECT
set -u
inspect=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'this is no ferry frame at all' > "$dir/text"
failures=0

# expect RC PATTERN ARGS...: runs ferry-inspect ARGS, checks its exit status
# and that its stdout and stderr together match PATTERN (grep -E).
expect() {
  local rc=$1 pattern=$2
  shift 2
  local out got
  out=$("$inspect" "$@" 2>&1)
  got=$?
  if [[ $got -ne $rc ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: ferry-inspect $*: exit $got (expected $rc), output:"
    echo "$out"
    echo "expected to match: $pattern"
    failures=$((failures + 1))
  else
    echo "ok: ferry-inspect $*"
  fi
}

expect 2 'no FILE given' 
expect 2 '^usage: ferry-inspect FILE' 
expect 0 '^usage: ferry-inspect FILE' --help
expect 0 'loading and running nothing' -h
expect 2 '--allow needs a PATH' "$dir/text" --allow
expect 2 '--search needs a DIR' "$dir/text" --search
expect 2 'unknown option --bogus' --bogus "$dir/text"
expect 2 'one FILE only' "$dir/text" "$dir/text"
expect 2 "cannot read $dir/missing: No such file or directory" "$dir/missing"
expect 2 "cannot read $dir: it is a directory" "$dir"
expect 1 'not ferry data' --search "$dir" "$dir/text"

echo "$failures failures"
[[ $failures -eq 0 ]]
