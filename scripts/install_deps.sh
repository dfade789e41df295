#!/usr/bin/env bash
# Installs the Debian packages ferry builds against, and any named on the
# command line (the benchmarks' extra ones), skipping those already present,
# so that running it twice costs one dpkg query.
#   scripts/install_deps.sh [PACKAGE...]
set -euo pipefail

packages=(
  g++ cmake make binutils python3 pkgconf clang-14 libclang-rt-14-dev
  libcereal-dev
  libboost1.81-dev
  libabsl-dev
  libgtest-dev
  libssl-dev
  openmpi-bin libopenmpi-dev
  munge slurmctld slurmd slurm-client slurm-wlm-basic-plugins iproute2
  valgrind
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
