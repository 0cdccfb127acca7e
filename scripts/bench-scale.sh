#!/usr/bin/env bash
# Frames at scale (issue "Performance lead", scale table): bench/scale.c, built once against
# include/, times open, random chunk reads, updates and deletes in the middle, and appends on
# super-chunks of N small chunks, with this library and the reference alternating
# (LD_LIBRARY_PATH), each run on a fresh copy of the same frame (written by this library:
# the reference rewrites its whole index on every append, so building 10^6 chunks with it
# would take hours). Stores: chunks in memory (blosc2_schunk_from_buffer with copy), a
# contiguous frame file, a sparse frame directory (up to SCALE_SPARSE_MAX chunks: one file
# per chunk). Prints a Markdown table of microseconds per operation, median of SCALE_ROUNDS
# runs, "ours / reference".
#   SCALE_SIZES="1000 10000 100000 1000000"  SCALE_SPARSE_MAX=100000  SCALE_ROUNDS=3
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/fetch-reference.sh >/dev/null
make -s build
mkdir -p target/bench
gcc -O2 -std=gnu11 -Wall -Iinclude -o target/bench/scale bench/scale.c -Ltarget/release -l:libblosc2.so.9
work=${SCALE_DIR:-$top/target/bench/scale-data}
mkdir -p "$work"
sizes=${SCALE_SIZES:-"1000 10000 100000 1000000"}
sparse_max=${SCALE_SPARSE_MAX:-100000}
rounds=${SCALE_ROUNDS:-3}
ours=target/release
ref=reference/blosc2/lib
results="$work/results.txt"
: >"$results"
for n in $sizes; do
  [ -f "$work/c-$n.b2frame" ] || LD_LIBRARY_PATH=$ours target/bench/scale build "$n" "$work/c-$n.b2frame"
  stores="memory file"
  if [ "$n" -le "$sparse_max" ]; then
    [ -d "$work/s-$n.b2dir" ] || LD_LIBRARY_PATH=$ours target/bench/scale sparse "$work/c-$n.b2frame" "$work/s-$n.b2dir"
    stores="$stores sparse"
  fi
  for store in $stores; do
    src="$work/c-$n.b2frame"
    [ "$store" = sparse ] && src="$work/s-$n.b2dir"
    for r in $(seq "$rounds"); do
      for lib in ours ref; do
        dir=$ours
        extra=()
        if [ "$lib" = ref ]; then
          dir=$ref
          # The reference corrupts its heap appending after a copying open of >= 512 chunks.
          [ "$store" = memory ] && [ "$n" -ge 512 ] && extra=(SCALE_NO_APPEND=1)
        fi
        rm -rf "$work/w"
        cp -r "$src" "$work/w"
        sync
        out=$(env "${extra[@]}" LD_LIBRARY_PATH=$dir timeout 600 target/bench/scale run "$store" "$work/w") ||
          { echo "scale: $lib $store $n failed" >&2; exit 1; }
        echo "$out" | awk -v n="$n" -v s="$store" -v l="$lib" '{print n, s, l, $1, $3}' >>"$results"
      done
    done
  done
done
rm -rf "$work/w"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%F)"
echo
python3 - "$results" <<'PY'
import sys, statistics, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    n, s, lib, op, v = line.split()
    d[(int(n), s, lib, op)].append(float(v))
ops = ["open", "read", "update", "resize", "delete", "append"]
print("| chunks | store | " + " | ".join(f"{o} us (ours / ref)" for o in ops) + " |")
print("|---|---|" + "---|" * len(ops))
def fmt(x):
    return "-" if x is None else (f"{x:.0f}" if x >= 100 else f"{x:.2g}" if x < 1 else f"{x:.1f}")
for n in sorted({k[0] for k in d}):
    for s in ["memory", "file", "sparse"]:
        if not any(k[0] == n and k[1] == s for k in d):
            continue
        cells = []
        for o in ops:
            m = {lib: (statistics.median(d[(n, s, lib, o)]) if d.get((n, s, lib, o)) else None) for lib in ("ours", "ref")}
            cells.append(f"{fmt(m['ours'])} / {fmt(m['ref'])}")
        print(f"| {n:,} | {s} | " + " | ".join(cells) + " |")
PY
