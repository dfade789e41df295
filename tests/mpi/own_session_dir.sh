#!/usr/bin/env bash
# Runs an MPI job on this machine (COMMAND: mpirun and its arguments) with
# an Open MPI session directory of its own, removed afterwards.
#
# Open MPI 4.1 puts every job's session directory under one directory per
# host and user, $TMPDIR/ompi.HOST.UID, made by whichever job needs it
# first and removed by the last one to end; two jobs starting or ending at
# once race on it ("A call to mkdir was unable to create the desired
# directory: ... File exists", then orte_init fails: open-mpi/ompi#8510),
# and ctest -j starts MPI jobs side by side. OMPI_MCA_orte_tmpdir_base,
# which mpirun hands to its ranks, gives this job a base no other job uses.
#   own_session_dir.sh COMMAND...
set -u
base=$(mktemp -d "${TMPDIR:-/tmp}/ferry-ompi-XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
OMPI_MCA_orte_tmpdir_base=$base "$@"
