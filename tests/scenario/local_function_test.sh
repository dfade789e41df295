#!/usr/bin/env bash
# The local-function scenario end to end, with two separate programs:
# ferry_sender links the library and writes closures made inside it;
# ferry_receiver never linked it and must run them, or fail cleanly.
set -u
sender=$1 receiver=$2 lib=$3 variant_lib=$4
libdir=$(dirname "$lib")
variant_dir=$(dirname "$variant_lib")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

if ldd "$receiver" | grep -q ferry_local_module; then fail "receiver must not link the library"; fi

for kind in lambda capture aggregate closure pointer header; do
  "$sender" "$kind" "$tmp/$kind.bin" || { fail "sender $kind"; continue; }
  out=$("$receiver" "$tmp/$kind.bin" --allow "$libdir" 2>&1)
  if [ "$out" = ok ]; then pass "$kind runs in the receiver"; else fail "$kind: got '$out'"; fi
done

# expect_error NAME ERROR_TYPE TEXT FILE [ARGS...]: exit status 1 (not a
# crash), the error type, and TEXT in the message.
expect_error() {
  local name=$1 type=$2 text=$3; shift 3
  out=$("$receiver" "$@" 2>&1); rc=$?
  if [ $rc -eq 1 ] && grep -q "error: ferry::$type" <<<"$out" && grep -qF -- "$text" <<<"$out"; then
    pass "$name"
  else
    fail "$name: status $rc, output: $out"
  fi
}

expect_error "module outside the allowed set" module_not_allowed_error "$libdir" "$tmp/lambda.bin"
expect_error "header closure outside the allowed set names the library, not the sender" \
  module_not_allowed_error "$libdir" "$tmp/header.bin"
expect_error "module built differently" build_id_mismatch_error "has build-id" \
  "$tmp/lambda.bin" --allow "$variant_dir"

size=$(stat -c %s "$tmp/closure.bin")
head -c $((size - 5)) "$tmp/closure.bin" >"$tmp/cut.bin"
expect_error "file cut short" format_error "offset" "$tmp/cut.bin" --allow "$libdir"

cp "$tmp/closure.bin" "$tmp/flipped.bin"
printf '\x55' | dd of="$tmp/flipped.bin" bs=1 seek=$((size - 2)) conv=notrunc status=none
expect_error "flipped byte" format_error "checksum mismatch" "$tmp/flipped.bin" --allow "$libdir"

echo "$failures failed"
[ $failures -eq 0 ]
