#!/usr/bin/env bash
# Installs ferry into a temporary prefix and builds tests/package/consumer
# against it (find_package), and against the source tree (add_subdirectory,
# as a unity build), then a pkg-config build; runs each and checks what it
# prints. A third argument, the sanitizers ferry was built with
# (FERRY_SANITIZE), builds the consumers with them too: a sanitizer's runtime
# must be in the program, not only in the libraries it loads. The rest, an
# mpirun command with its flags (FERRY_LOCAL_MPIRUN; none where ferry has no
# MPI library, or under a sanitizer, as for tests/mpi/), adds the MPI consumers: mpi_consumer built against the
# package's mpi component and through add_subdirectory, and a pkg-config
# (ferry-mpi) build, each run under mpirun -n 2.
set -u
src=$1 build=$2
mpirun=("${@:4}")  # the launch command and its flags (FERRY_LOCAL_MPIRUN), or nothing
sanitize=()
cflags=""
if [ -n "${3:-}" ]; then
  cflags="-fsanitize=$3 -fno-omit-frame-pointer"
  sanitize=(-DCMAKE_CXX_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$3" -DFERRY_SANITIZE="$3")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
check() {  # NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "PASS $1"; else echo "FAIL $1"; echo "expected:"; echo "$2"; echo "got:"; echo "$3"; failures=$((failures + 1)); fi
}
expected=$'loads: hello consumer\nspawn: hello spawn\nfork: hello fork\nplugin: hello plugin'

mpi_cmake=()
[ ${#mpirun[@]} -gt 0 ] && mpi_cmake=(-DFERRY_CONSUMER_MPI=ON)
mpi_expected=$'mpi spawn: hello mpi\nmpi plugin: hello mpi'
run_mpi() {  # PROGRAM: both start methods, one job each
  for method in spawn plugin; do timeout 120 "${mpirun[@]}" -n 2 "$1" "$method" 2>&1; done
}

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || { echo "FAIL install"; exit 1; }
for f in lib/cmake/ferry/ferryConfig.cmake lib/cmake/ferry/ferryConfigVersion.cmake lib/pkgconfig/ferry.pc \
         include/ferry/serialize/function.h include/ferry/executor/process_pool.h libexec/ferry/ferry-worker; do
  [ -e "$tmp/prefix/$f" ] || { echo "FAIL missing $f"; failures=$((failures + 1)); }
done
[ -e "$tmp/prefix/include/serialize" ] && { echo "FAIL headers loose in include/"; failures=$((failures + 1)); }
if [ ${#mpirun[@]} -gt 0 ]; then
  for f in lib/pkgconfig/ferry-mpi.pc lib/cmake/ferry/ferryMpiTargets.cmake include/ferry/executor/mpi_pool.h; do
    [ -e "$tmp/prefix/$f" ] || { echo "FAIL missing $f"; failures=$((failures + 1)); }
  done
elif [ -z "$3" ]; then
  # Built without MPI: its header and component must not be installed.
  for f in lib/pkgconfig/ferry-mpi.pc include/ferry/executor/mpi_pool.h; do
    [ -e "$tmp/prefix/$f" ] && { echo "FAIL $f installed without the MPI library"; failures=$((failures + 1)); }
  done
fi

cmake -S "$src/tests/package/consumer" -B "$tmp/package" -DCMAKE_PREFIX_PATH="$tmp/prefix" "${sanitize[@]}" \
  "${mpi_cmake[@]}" >/dev/null &&
  cmake --build "$tmp/package" -j2 >/dev/null || { echo "FAIL build against the installed package"; exit 1; }
check "find_package consumer" "$expected" "$("$tmp/package/consumer" spawn fork plugin 2>&1)"
if [ ${#mpirun[@]} -gt 0 ]; then
  check "find_package(ferry COMPONENTS mpi) consumer under mpirun" "$mpi_expected" "$(run_mpi "$tmp/package/mpi_consumer")"
fi

# ferry's sources compile a second time here, in batches as ferry's own
# build compiles them (FERRY_UNITY_BUILD, on unless a user turns it off),
# and without optimization: the consumer gives no build type.
cmake -S "$src/tests/package/consumer" -B "$tmp/subdirectory" -DFERRY_CONSUMER_MODE=subdirectory \
  -DFERRY_SOURCE_DIR="$src" "${sanitize[@]}" "${mpi_cmake[@]}" >/dev/null &&
  cmake --build "$tmp/subdirectory" -j2 >/dev/null || { echo "FAIL build with add_subdirectory"; exit 1; }
check "add_subdirectory consumer" "$expected" "$("$tmp/subdirectory/consumer" spawn fork plugin 2>&1)"
# The consumer gave no build type, and ferry keeps it so (its default is for its own builds).
check "add_subdirectory keeps the consumer's build type" "CMAKE_BUILD_TYPE:STRING=" \
  "$(grep '^CMAKE_BUILD_TYPE:' "$tmp/subdirectory/CMakeCache.txt")"
if [ ${#mpirun[@]} -gt 0 ]; then
  check "add_subdirectory mpi consumer under mpirun" "$mpi_expected" "$(run_mpi "$tmp/subdirectory/mpi_consumer")"
fi
[ -e "$tmp/subdirectory/ferry/tests" ] && { echo "FAIL ferry's tests were built inside the consumer"; failures=$((failures + 1)); }

flags=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs ferry) &&
  g++ $cflags "$src/tests/package/pkgconfig_consumer.cpp" $flags -o "$tmp/pc" ||
  { echo "FAIL pkg-config build"; exit 1; }
# The .pc file's RPATH finds the libraries: no LD_LIBRARY_PATH.
check "pkg-config consumer" "pkg-config: 42" "$(env -u LD_LIBRARY_PATH "$tmp/pc" 2>&1)"
if [ ${#mpirun[@]} -gt 0 ]; then
  flags=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs ferry-mpi) &&
    g++ "$src/tests/package/pkgconfig_mpi_consumer.cpp" $flags -o "$tmp/pc_mpi" ||
    { echo "FAIL pkg-config build of ferry-mpi"; exit 1; }
  check "pkg-config ferry-mpi consumer under mpirun" "pkg-config mpi: 42" \
    "$(env -u LD_LIBRARY_PATH timeout 120 "${mpirun[@]}" -n 2 "$tmp/pc_mpi" 2>&1)"
else
  if [ -n "$3" ]; then echo "SKIPPED the MPI consumers: a sanitizer build"; else echo "SKIPPED the MPI consumers: no MPI library"; fi
fi

echo "$failures failed"
[ $failures -eq 0 ]
