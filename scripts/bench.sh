#!/usr/bin/env bash
# Build bench/bench.c once against include/ and run it with our library and with the reference
# in the same session (the codec matrix, the other type sizes and filter pipelines with both loaded in one
# process, the other parts with an LD_LIBRARY_PATH swap); print the comparison tables (codecs,
# typesizes, filters, b2nd slices, lazy chunks, plugins). BENCH_PARTS picks some of those.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
make -s build
scripts/build-bench.sh
budget=${BENCH_SECONDS:-0.15}
rain=../shared/fixtures/raw/rainfall-grid-150x150.bin
runs=${BENCH_RUNS:-3}
codecs=(blosclz lz4 lz4hc zlib zstd)
parts=${BENCH_PARTS:-codecs typesizes filters b2nd lazy plugins}
ours=(); refs=()
if [[ " $parts " == *" codecs "* ]]; then
: > target/bench/pair.log  # which file each side's calls came from (dladdr), per run
# Both libraries in one process (bench pair: dlopen'd side by side), each configuration
# measured with both before the next, codec by codec, the two libraries taking turns in
# slices of about a twentieth of a second within each measurement (bench.c's measure_turns;
# since 2026-11-29: before, all of one library's calls and then the other's, so a slow spell
# of the machine fell on one side), swapping which goes first every round. Separate processes per library (as before 2026-11-28) moved
# by 10-30% between rounds on this shared machine; compare.py keeps each configuration's
# median speed over the rounds (the best when there are fewer than three).
for i in $(seq 1 "$runs"); do
  o=target/bench/ours$i.txt r=target/bench/ref$i.txt
  : > "$o"; : > "$r"
  order=$([ $((i % 2)) -eq 1 ] && echo ours-first || echo ref-first)
  for c in "${codecs[@]}"; do
    LD_LIBRARY_PATH=target/release target/bench/bench pair "$top/target/release/libblosc2.so" \
      "$top/reference/blosc2/lib/libblosc2.so.9" "$budget" "$rain" "$c" "$order" 2>>target/bench/pair.log > target/bench/pair.txt
    sed -n 's/^ours //p' target/bench/pair.txt >> "$o"
    sed -n 's/^ref //p' target/bench/pair.txt >> "$r"
  done
  ours+=("$o"); refs+=("$r")
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
python3 bench/compare.py "$(IFS=,; echo "${ours[*]}")" "$(IFS=,; echo "${refs[*]}")"
fi

# Parts run with both libraries in one process (bench MODE OURS REF budget ARGS... ORDER),
# `runs` rounds swapping which goes first, then compared: MODE, then MODE's extra arguments.
pair_part() {
  local mode=$1 po=() pr=() i o r order
  shift
  for i in $(seq 1 "$runs"); do
    o=target/bench/$mode-ours$i.txt r=target/bench/$mode-ref$i.txt
    order=$([ $((i % 2)) -eq 1 ] && echo ours-first || echo ref-first)
    LD_LIBRARY_PATH=target/release target/bench/bench "$mode" "$top/target/release/libblosc2.so" \
      "$top/reference/blosc2/lib/libblosc2.so.9" "$budget" "$@" "$order" 2>>target/bench/pair.log > "target/bench/$mode.txt"
    sed -n 's/^ours //p' "target/bench/$mode.txt" > "$o"
    sed -n 's/^ref //p' "target/bench/$mode.txt" > "$r"
    po+=("$o"); pr+=("$r")
  done
  echo
  python3 bench/compare.py "$(IFS=,; echo "${po[*]}")" "$(IFS=,; echo "${pr[*]}")"
}

# The type sizes the matrix's data sets leave out (1, 2, 16; bench typesizes).
if [[ " $parts " == *" typesizes "* ]]; then pair_part typesizes; fi

# The filter pipelines outside the matrix (delta, precision truncation, bytedelta, integer
# truncation; bench filters).
if [[ " $parts " == *" filters "* ]]; then pair_part filters "$rain"; fi

# b2nd slices (get/set, 2-D and 3-D, memory and file), alternating the libraries likewise.
if [[ " $parts " == *" b2nd "* ]]; then
bo=(); br=()
mkdir -p target/bench/b2nd-ours target/bench/b2nd-ref
for i in $(seq 1 "$runs"); do
  o=target/bench/b2nd-ours$i.txt r=target/bench/b2nd-ref$i.txt
  if [ $((i % 2)) -eq 1 ]; then
    LD_LIBRARY_PATH=target/release target/bench/bench b2nd "$budget" target/bench/b2nd-ours > "$o"
    LD_LIBRARY_PATH=reference/blosc2/lib target/bench/bench b2nd "$budget" target/bench/b2nd-ref > "$r"
  else
    LD_LIBRARY_PATH=reference/blosc2/lib target/bench/bench b2nd "$budget" target/bench/b2nd-ref > "$r"
    LD_LIBRARY_PATH=target/release target/bench/bench b2nd "$budget" target/bench/b2nd-ours > "$o"
  fi
  bo+=("$o"); br+=("$r")
done
echo
python3 bench/compare.py --b2nd "$(IFS=,; echo "${bo[*]}")" "$(IFS=,; echo "${br[*]}")"
fi

# Lazy chunks of frames on disk read through a caller's context (bench lazy).
if [[ " $parts " == *" lazy "* ]]; then
lo=(); lr=()
mkdir -p target/bench/lazy-ours target/bench/lazy-ref
for i in $(seq 1 "$runs"); do
  o=target/bench/lazy-ours$i.txt r=target/bench/lazy-ref$i.txt
  if [ $((i % 2)) -eq 1 ]; then
    LD_LIBRARY_PATH=target/release target/bench/bench lazy "$budget" target/bench/lazy-ours > "$o"
    LD_LIBRARY_PATH=reference/blosc2/lib target/bench/bench lazy "$budget" target/bench/lazy-ref > "$r"
  else
    LD_LIBRARY_PATH=reference/blosc2/lib target/bench/bench lazy "$budget" target/bench/lazy-ref > "$r"
    LD_LIBRARY_PATH=target/release target/bench/bench lazy "$budget" target/bench/lazy-ours > "$o"
  fi
  lo+=("$o"); lr+=("$r")
done
echo
python3 bench/compare.py --b2nd "$(IFS=,; echo "${lo[*]}")" "$(IFS=,; echo "${lr[*]}")"
fi

# The n-dimensional plugins (NDLZ, ZFP, ndcell, ndmean) through b2nd arrays.
if [[ " $parts " == *" plugins "* ]]; then
po=(); pr=()
for i in $(seq 1 "$runs"); do
  o=target/bench/plugins-ours$i.txt r=target/bench/plugins-ref$i.txt
  if [ $((i % 2)) -eq 1 ]; then
    LD_LIBRARY_PATH=target/release target/bench/bench plugins "$budget" > "$o"
    LD_LIBRARY_PATH=reference/blosc2/lib target/bench/bench plugins "$budget" > "$r"
  else
    LD_LIBRARY_PATH=reference/blosc2/lib target/bench/bench plugins "$budget" > "$r"
    LD_LIBRARY_PATH=target/release target/bench/bench plugins "$budget" > "$o"
  fi
  po+=("$o"); pr+=("$r")
done
echo
python3 bench/compare.py --plugins "$(IFS=,; echo "${po[*]}")" "$(IFS=,; echo "${pr[*]}")"
fi
