#!/usr/bin/env bash
# Installs ferry into a temporary prefix and builds tests/package/consumer
# against it (find_package), and against the source tree (add_subdirectory),
# then a pkg-config build; runs each and checks what it prints. A third
# argument, the sanitizers ferry was built with (FERRY_SANITIZE), builds the
# consumers with them too: a sanitizer's runtime must be in the program, not
# only in the libraries it loads.
set -u
src=$1 build=$2
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

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || { echo "FAIL install"; exit 1; }
for f in lib/cmake/ferry/ferryConfig.cmake lib/cmake/ferry/ferryConfigVersion.cmake lib/pkgconfig/ferry.pc \
         include/ferry/serialize/function.h include/ferry/executor/process_pool.h libexec/ferry/ferry-worker; do
  [ -e "$tmp/prefix/$f" ] || { echo "FAIL missing $f"; failures=$((failures + 1)); }
done
[ -e "$tmp/prefix/include/serialize" ] && { echo "FAIL headers loose in include/"; failures=$((failures + 1)); }

cmake -S "$src/tests/package/consumer" -B "$tmp/package" -DCMAKE_PREFIX_PATH="$tmp/prefix" "${sanitize[@]}" >/dev/null &&
  cmake --build "$tmp/package" -j2 >/dev/null || { echo "FAIL build against the installed package"; exit 1; }
check "find_package consumer" "$expected" "$("$tmp/package/consumer" spawn fork plugin 2>&1)"

cmake -S "$src/tests/package/consumer" -B "$tmp/subdirectory" -DFERRY_CONSUMER_MODE=subdirectory \
  -DFERRY_SOURCE_DIR="$src" "${sanitize[@]}" >/dev/null &&
  cmake --build "$tmp/subdirectory" -j2 >/dev/null || { echo "FAIL build with add_subdirectory"; exit 1; }
check "add_subdirectory consumer" "$expected" "$("$tmp/subdirectory/consumer" spawn fork plugin 2>&1)"
[ -e "$tmp/subdirectory/ferry/tests" ] && { echo "FAIL ferry's tests were built inside the consumer"; failures=$((failures + 1)); }

flags=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs ferry) &&
  g++ $cflags "$src/tests/package/pkgconfig_consumer.cpp" $flags -Wl,-rpath,"$tmp/prefix/lib" -o "$tmp/pc" ||
  { echo "FAIL pkg-config build"; exit 1; }
check "pkg-config consumer" "pkg-config: 42" "$("$tmp/pc" 2>&1)"

echo "$failures failed"
[ $failures -eq 0 ]
