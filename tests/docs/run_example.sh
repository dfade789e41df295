#!/usr/bin/env bash
# Runs an example and fails unless its output is exactly the expected file.
#   run_example.sh PROGRAM EXPECTED [LAUNCHER...]   (LAUNCHER: mpirun and its options)
set -u
exe=$1 expected=$2
shift 2
actual=$("$@" "$exe") || { echo "example exited with $?"; exit 1; }
if diff -u "$expected" <(printf '%s\n' "$actual"); then echo "output as documented"; else exit 1; fi
