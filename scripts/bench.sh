#!/usr/bin/env bash
# Build bench/bench.c once against include/ and run it with our library and with the reference
# (LD_LIBRARY_PATH swap) in the same session; print the comparison table.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/fetch-reference.sh
make -s build
mkdir -p target/bench
gcc -O2 -std=gnu11 -Iinclude -o target/bench/bench bench/bench.c -Ltarget/release -l:libblosc2.so.9 -lm
budget=${BENCH_SECONDS:-0.15}
rain=../shared/fixtures/raw/rainfall-grid-150x150.bin
runs=${BENCH_RUNS:-2}
ours=(); refs=()
for i in $(seq 1 "$runs"); do
  LD_LIBRARY_PATH=target/release target/bench/bench "$budget" "$rain" > target/bench/ours$i.txt
  LD_LIBRARY_PATH=reference/blosc2/lib target/bench/bench "$budget" "$rain" > target/bench/ref$i.txt
  ours+=(target/bench/ours$i.txt); refs+=(target/bench/ref$i.txt)
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
python3 bench/compare.py "$(IFS=,; echo "${ours[*]}")" "$(IFS=,; echo "${refs[*]}")"
