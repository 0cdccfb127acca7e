#!/usr/bin/env bash
# Peak resident memory, ours and the reference's (issue "Performance lead", memory table):
# bench/mem.c built once against include/, each workload run as its own process with each
# library on LD_LIBRARY_PATH (alternating), three runs of the workload inside each process
# (MEM_REPEAT=3) to show whether memory grows from one run to the next. Prints a Markdown
# table: peak after the first and the third run, in MiB, and ours / reference.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/fetch-reference.sh >/dev/null
make -s build
mkdir -p target/bench
gcc -O2 -std=gnu11 -Wall -Iinclude -o target/bench/mem bench/mem.c -Ltarget/release -l:libblosc2.so.9
frame=target/bench/mem-1e6.b2frame
[ -f "$frame" ] || LD_LIBRARY_PATH=target/release target/bench/mem mkframe "$frame" 1000000 >/dev/null
# Resident code depends on how the library file sits in the page cache (the kernel maps
# whole cached folios, and their size depends on how the file got there: written by the
# linker, copied, or read from disk). As root, each process starts with the cache dropped,
# so both libraries are read from disk alike, as after a boot; otherwise say so.
if [ -w /proc/sys/vm/drop_caches ]; then
  fresh() { sync; echo 3 > /proc/sys/vm/drop_caches; }
  cache_note="page cache dropped before each process"
else
  fresh() { :; }
  cache_note="page cache as found (not root: resident code may differ by up to 0.5 MiB)"
fi
peaks() {  # lib, workload args -> "first third" in MiB
  fresh
  MEM_REPEAT=3 LD_LIBRARY_PATH=$1 target/bench/mem "${@:2}" 2>/dev/null |
    awk '{for (i = 1; i < NF; i++) if ($i == "maxrss_kib") p[++n] = $(i + 1)} END {printf "%.1f %.1f", p[1] / 1024, p[n] / 1024}'
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%F); $cache_note"
echo
echo "| workload | ours MiB (1st / 3rd run) | reference MiB (1st / 3rd run) | ours / ref |"
echo "|---|---|---|---|"
row() {
  local name=$1; shift
  read -r o1 o3 <<<"$(peaks target/release "$@")"
  read -r r1 r3 <<<"$(peaks reference/blosc2/lib "$@")"
  echo "| $name | $o1 / $o3 | $r1 / $r3 | $(awk -v a="$o3" -v b="$r3" 'BEGIN {printf "%.2f", a / b}') |"
}
row "nothing (library loaded, init/destroy)" none
row "256 MiB through a super-chunk, 1 thread" schunk 1
row "256 MiB through a super-chunk, 2 threads" schunk 2
row "b2nd 1 GiB float64, filled and read by slices" b2nd
row "open a frame of 10^6 chunks, read the last" open "$frame"
row "10,000 contexts made and freed" contexts 10000
