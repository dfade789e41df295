#!/usr/bin/env bash
# Makes docs/images/timeline.png from a real run: tests/executor/timeline.cpp
# (twelve tasks on two workers) writes its trace, headless Chromium draws
# its page (tests/executor/timeline_test.py, which checks it as the test
# timeline does), and the picture's alt text in docs/api/executor.md is set
# to the page's summary of that same run, which the PNG also carries
# (checked by tests/docs/check_pictures.py).
#   scripts/timeline_picture.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install_deps.sh" chromium
"$root/scripts/build.sh" default timeline ferry-worker >/dev/null
build=$("$root/scripts/build_dir.sh" default)
out=$(python3 "$root/tests/executor/timeline_test.py" "$build/tests/executor/timeline" \
  --screenshot "$root/docs/images/timeline.png")
echo "$out"
summary=$(sed -n 's/^summary: //p' <<<"$out")
[ -n "$summary" ] || { echo "no summary: the run failed its checks" >&2; exit 1; }
sed -i "s|^!\[A timeline: [^]]*\](../images/timeline.png)|![A timeline: $summary](../images/timeline.png)|" \
  "$root/docs/api/executor.md"
grep -q "^!\[A timeline: $summary\]" "$root/docs/api/executor.md" ||
  { echo "docs/api/executor.md has no line '![A timeline: ...](../images/timeline.png)'" >&2; exit 1; }
