#!/usr/bin/env bash
# Fails unless every file given carries a GNU build-id note.
set -u
status=0
for f in "$@"; do
  if readelf -n "$f" 2>/dev/null | grep -q 'Build ID:'; then
    echo "build-id present: $f"
  else
    echo "MISSING build-id: $f"
    status=1
  fi
done
exit $status
