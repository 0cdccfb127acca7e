#!/usr/bin/env bash
# Opens every frame the `frame` fuzzer kept (fuzz/corpus/frame and the reproducers in
# fuzz/artifacts-found/frame) with the reference and with this library, with
# blosc2_schunk_from_buffer(copy=true) and (copy=false), reads and decompresses their chunks
# (c_tests/tools/frame_replay.c, one process per file so that a crash is one line), and lists
# the files on which the two disagree, with the reference's first trace message.
# Not part of `make test` (the corpus changes with every fuzzing run); results in
# fuzz/README.md. Usage: scripts/fuzz-frame-differential.sh [FILES...]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ref=$top/reference/blosc2/lib
ours=$top/target/release
test -e "$ours/libblosc2.so.9" || { echo "build first (make build)"; exit 2; }
test -e "$ref/libblosc2.so.9" || { echo "no reference (scripts/fetch-reference.sh)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O1 -Wall -I reference/blosc2/include -o "$work/replay" c_tests/tools/frame_replay.c \
  -L "$ref" -l:libblosc2.so.9
if [ $# -eq 0 ]; then set -- fuzz/corpus/frame/* fuzz/artifacts-found/frame/*; fi
differ=0
for copy in 1 0; do
  for side in ref ours; do
    lib=$([ $side = ref ] && echo "$ref" || echo "$ours")
    for f in "$@"; do
      COPY=$copy LD_LIBRARY_PATH="$lib" timeout 60 "$work/replay" "$f" 2>/dev/null ||
        echo "$(basename "$f"): EXIT $?"
    done > "$work/$side.$copy"
  done
  n=0
  while read -r line; do
    f=${line%%:*}
    path=$(ls fuzz/corpus/frame/"$f" fuzz/artifacts-found/frame/"$f" 2>/dev/null | head -1)
    why=$(COPY=$copy BLOSC_TRACE=1 LD_LIBRARY_PATH="$ref" timeout 60 "$work/replay" "$path" 2>&1 >/dev/null |
          grep -o '\] - [^(]*' | head -1 | sed 's/^\] - //')
    echo "copy=$copy ref  ${line#*: }"
    echo "copy=$copy ours $(grep -F "$f:" "$work/ours.$copy" | sed 's/^[^:]*: //')  [$f; reference: ${why:-no trace}]"
    n=$((n+1))
  done < <(diff "$work/ref.$copy" "$work/ours.$copy" | sed -n 's/^< //p')
  echo "copy=$copy: $# files, $n differ; crashes: reference $(grep -c EXIT "$work/ref.$copy"), ours $(grep -c EXIT "$work/ours.$copy")"
  differ=$((differ + n))
  [ "$(grep -c EXIT "$work/ours.$copy")" -eq 0 ] || differ=$((differ + 1000))
done
[ $differ -eq 0 ]
