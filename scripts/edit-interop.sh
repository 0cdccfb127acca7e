#!/usr/bin/env bash
# Edited frames, both ways (a step of `make test`): for each seed and frame kind (contiguous
# file, sparse directory, contiguous in memory passed on as to_buffer bytes), c_tests/tools/edit_sequences.c makes a random sequence of edits
# (appends, inserts, updates, deletes down to an empty frame, metalayer, vlmetalayer,
# reorders) with one library and checks the result with the other, for the four
# writer/reader pairs (reference/reference, reference/ours, ours/reference, ours/ours).
# Then the same for b2nd arrays on disk (c_tests/tools/b2nd_edit_sequences.c: resize,
# insert, append, delete and slice writes along random axes of 1-3-dimensional arrays); a
# reference writer that dies (it divides by zero appending along an axis when another is
# empty, see the README's defect list) is counted apart, and its half-written file not read.
# The shared frame-interop check edits frames too, but with fixed scenarios; this found that
# a frame emptied by deletes did not open across the libraries.
# usage: scripts/edit-interop.sh [SEEDS]   (default 200; half as many for b2nd)
# Negative control: EDIT_READER_PRELOAD=<../shared/interop/sabotage_shim.c built> with
# SABOTAGE=decompress (or vlmeta) preloads it into the reader runs, and the check fails.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ref=$top/reference/blosc2/lib
ours=${EDIT_OURS:-$top/target/release}
test -e "$ours/libblosc2.so.9" || { echo "build first (make build)"; exit 2; }
test -e "$ref/libblosc2.so.9" || { echo "no reference (scripts/fetch-reference.sh)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O1 -Wall -I reference/blosc2/include -o "$work/edit" c_tests/tools/edit_sequences.c \
  -L "$ref" -l:libblosc2.so.9 || exit 2
gcc -O1 -Wall -I reference/blosc2/include -o "$work/b2edit" c_tests/tools/b2nd_edit_sequences.c \
  -L "$ref" -l:libblosc2.so.9 || exit 2
seeds=${1:-200}
lib_of() { if [ "$1" = ref ]; then echo "$ref"; else echo "$ours"; fi; }
kind_name() { case $1 in c) echo contiguous ;; s) echo sparse ;; m) echo in memory ;; esac; }
# read_back LABEL READER STDIN CMD...: one check, the reader library running CMD (fed STDIN)
# must print OK last.
read_back() {
  local label=$1 reader=$2 input=$3 got
  shift 3
  got=$(printf '%s\n' "$input" | LD_PRELOAD="${EDIT_READER_PRELOAD:-}" \
        LD_LIBRARY_PATH="$(lib_of "$reader")" "$@" 2>&1 | tail -1)
  runs=$((runs + 1))
  if [ "$got" != OK ]; then
    fails=$((fails + 1))
    [ $fails -le 20 ] && echo "FAIL $label, read by $reader: $got"
  fi
}

runs=0 fails=0
for seed in $(seq 1 "$seeds"); do
  for kind in c s m; do
    for writer in ref ours; do
      path=$work/frame.$kind
      expected=$(LD_LIBRARY_PATH="$(lib_of $writer)" "$work/edit" "$path" $kind "$seed" w | tail -1)
      for reader in ref ours; do
        read_back "seed $seed, $(kind_name $kind), written by $writer" $reader "$expected" \
          "$work/edit" "$path" $kind "$seed" r
      done
    done
  done
done
echo "edit interop (frames): $runs checks ($seeds seeds x 3 kinds x 4 writer/reader pairs), $fails failed"
frame_fails=$fails
runs=0 fails=0 refdied=0
for seed in $(seq 1 $(( (seeds + 1) / 2 ))); do
  for kind in c s; do
    for writer in ref ours; do
      path=$work/array.$kind.b2nd
      wrote=$(LD_LIBRARY_PATH="$(lib_of $writer)" "$work/b2edit" "$path" $kind "$seed" w "$work/dump" 2>&1)
      wrc=$?
      if [ $wrc -ne 0 ] || ! tail -1 <<<"$wrote" | grep -q '^OK'; then
        if [ $writer = ref ] && [ $wrc -ge 128 ]; then refdied=$((refdied + 1)); continue; fi
        fails=$((fails + 1))
        echo "FAIL b2nd seed $seed, written by $writer: rc $wrc, $(tail -1 <<<"$wrote")"
        continue
      fi
      for reader in ref ours; do
        read_back "b2nd seed $seed, $(kind_name $kind), written by $writer" $reader "" \
          "$work/b2edit" "$path" $kind "$seed" r "$work/dump"
      done
    done
  done
done
echo "edit interop (b2nd): $runs checks, $fails failed ($refdied reference writer runs died, a known reference defect)"
[ $frame_fails -eq 0 ] && [ $fails -eq 0 ]
