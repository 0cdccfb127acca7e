#!/usr/bin/env bash
# Differential tests of the c-blosc 1.x face (target/release/libblosc.so.1) against Debian
# 12's c-blosc 1.21.3 (reference/blosc1/, scripts/fetch-reference-blosc1.sh). One driver
# (diff.c) is compiled against Debian's blosc.h and run with each library on
# LD_LIBRARY_PATH:
#   exports  exactly the 25 functions Debian's library exports; SONAME libblosc.so.1
#   abi      every macro of our blosc.h equals Debian's; every prototype matches (abi.c)
#   which    the driver really runs on the library under test
#   gen      ~10,800 compressions (every codec, filter, clevel, typesizes 1-300, sizes 0 B
#            to 6 MB, forced block sizes, split modes, small destinations, 2 threads):
#            chunk bytes, decompression, getitem and cbuffer answers must be equal
#            (accepted.py lists the only differences allowed, with reasons)
#   read     each library decodes the other's chunks with the same results
#   mutate   damaged chunks (header fields, block starts, stream bytes) give the same
#            answers; the reference runs in a child per case (CRASH is recorded)
#   api/env  names, versions, settings, argument errors; the BLOSC_* environment variables
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
scripts/fetch-reference-blosc1.sh
REF="$top/reference/blosc1/usr/lib/x86_64-linux-gnu"
OURS="$top/target/release"
test -e "$OURS/libblosc.so.1" || { echo "build first (make build)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# exports and SONAME
nm -D --defined-only "$REF/libblosc.so.1" | awk '$2=="T"{print $3}' | sort > "$work/ref.syms"
nm -D --defined-only "$OURS/libblosc.so.1" | awk '{print $3}' | sort > "$work/ours.syms"
diff "$work/ref.syms" "$work/ours.syms" || bad "exported symbols differ"
objdump -p "$OURS/libblosc.so.1" | grep -q 'SONAME *libblosc.so.1$' || bad "SONAME"
echo "exports: $(wc -l < "$work/ours.syms") functions"

# abi
for side in ref ours; do
  inc=$([ $side = ref ] && echo "$top/reference/blosc1/usr/include" || echo "$top/blosc1/include")
  lib=$([ $side = ref ] && echo "$REF" || echo "$OURS")
  gcc -std=c99 -Wall -Werror -I "$inc" -o "$work/abi.$side" c_tests/blosc1/abi.c -L "$lib" -l:libblosc.so.1
  LD_LIBRARY_PATH="$lib" "$work/abi.$side" > "$work/abi.$side.txt"
done
diff "$work/abi.ref.txt" "$work/abi.ours.txt" || bad "blosc.h macros differ"
echo "abi: $(wc -l < "$work/abi.ours.txt") values compared"

t0=$SECONDS
gcc -O2 -Wall -I "$top/reference/blosc1/usr/include" -o "$work/diff" c_tests/blosc1/diff.c \
  -L "$REF" -l:libblosc.so.1 -ldl
run() { local side=$1; shift; local lib=$([ "$side" = ref ] && echo "$REF" || echo "$OURS")
        LD_LIBRARY_PATH="$lib" "$work/diff" "$@" 2>/dev/null; }

# which
[ "$(run ours which)" = "$(readlink -f "$OURS/libblosc.so.1" | sed 's/\.21\.3$//;s/\.1\.21$//')" ] ||
  [ "$(readlink -f "$(run ours which)")" = "$(readlink -f "$OURS/libblosc.so.1")" ] ||
  bad "the driver did not run on our library: $(run ours which)"

compare() {  # name, file ref, file ours
  echo "($((SECONDS - t0)) s)"
  if ! diff <(python3 c_tests/blosc1/accepted.py "$2") <(python3 c_tests/blosc1/accepted.py "$3") > "$work/$1.diff"; then
    bad "$1: $(grep -c '^<' "$work/$1.diff") lines differ"; head -6 "$work/$1.diff" | cut -c1-300
  fi
  echo "$1: $(wc -l < "$3") lines compared"
}
# The two sides of each comparison run at the same time (one per core).
both() {  # out-prefix, command args... : $work/ref.$1 and $work/ours.$1
  local out=$1; shift
  run ref "$@" > "$work/ref.$out" & local pid=$!
  run ours "$@" > "$work/ours.$out"
  wait $pid
}
run ref gen "$work/ref.bin" > "$work/ref.gen" & gen_pid=$!
run ours gen "$work/ours.bin" > "$work/ours.gen"
wait $gen_pid
compare gen "$work/ref.gen" "$work/ours.gen"
grep -q 'rt=BAD' "$work/ours.gen" && echo "note: $(grep -c 'rt=BAD' "$work/ours.gen") chunks do not read back (as with the reference: see README)"
both ours.read read "$work/ours.bin"
compare "read ours" "$work/ref.ours.read" "$work/ours.ours.read"
both ref.read read "$work/ref.bin"
compare "read reference's" "$work/ref.ref.read" "$work/ours.ref.read"
stride=${MUTATE_STRIDE:-25}
both mut mutate "$work/ref.bin" "$stride"
compare mutate "$work/ref.mut" "$work/ours.mut"
grep -q CRASH "$work/ours.mut" && bad "our library crashed on $(grep -c CRASH "$work/ours.mut") mutants"
echo "reference crashed on $(grep -c CRASH "$work/ref.mut" || true) mutants"
both api api
compare api "$work/ref.api" "$work/ours.api"
: > "$work/ref.env"; : > "$work/ours.env"
while read -r vars; do
  for side in ref ours; do
    echo "env $vars: $(env $vars bash -c "$(declare -f run); REF=$REF OURS=$OURS work=$work run $side env")" >> "$work/$side.env"
  done
done <<'VARS'
BLOSC_CLEVEL=0
BLOSC_CLEVEL=9
BLOSC_CLEVEL=22
BLOSC_CLEVEL=abc
BLOSC_CLEVEL=12
BLOSC_SHUFFLE=SHUFFLE
BLOSC_SHUFFLE=BITSHUFFLE
BLOSC_SHUFFLE=bogus
BLOSC_TYPESIZE=8
BLOSC_TYPESIZE=0
BLOSC_COMPRESSOR=zstd
BLOSC_COMPRESSOR=snappy
BLOSC_COMPRESSOR=lz4hc
BLOSC_COMPRESSOR=nope
BLOSC_BLOCKSIZE=4096
BLOSC_BLOCKSIZE=-5
BLOSC_NTHREADS=2
BLOSC_NTHREADS=0
BLOSC_SPLITMODE=ALWAYS
BLOSC_SPLITMODE=NEVER
BLOSC_SPLITMODE=AUTO
BLOSC_SPLITMODE=FORWARD_COMPAT
BLOSC_SPLITMODE=sometimes
BLOSC_NOLOCK=1
BLOSC_NOLOCK=1 BLOSC_COMPRESSOR=lz4 BLOSC_CLEVEL=7
BLOSC_CLEVEL=5 BLOSC_SHUFFLE=BITSHUFFLE BLOSC_TYPESIZE=4 BLOSC_COMPRESSOR=blosclz BLOSC_BLOCKSIZE=100000
VARS
compare env "$work/ref.env" "$work/ours.env"
echo "time: $((SECONDS - t0)) s"
[ $fail -eq 0 ] && echo "blosc1 differential: OK"
exit $fail
