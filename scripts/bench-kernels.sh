#!/usr/bin/env bash
# The exported shuffle kernels (byte and bit, forward and back) against the reference
# c-blosc2, both loaded in one process and alternating (bench/kernels.c): every type size
# 1-18, 24, 32, 64, blocks of 8, 32 and 256 KiB, page-aligned and 16 bytes off. Prints one
# line per case (kernel, type size, block, offset, ours and the reference in GB/s, ratio)
# and the geometric mean per kernel (KERNELS_OFF sets the offsets). A benchmark, not a test: it fails only when the two
# libraries' outputs differ. Arguments go to the program (ROUNDS, MS); KERNELS_TS and
# KERNELS_KIB restrict the cases. Expects `make build` done.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/fetch-reference.sh >/dev/null
[ -f target/release/libblosc2.so.9 ] || { echo "run make build first" >&2; exit 2; }
mkdir -p target/bench
gcc -O2 -std=gnu11 -Iinclude -o target/bench/kernels bench/kernels.c -ldl
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
target/bench/kernels "$top/target/release/libblosc2.so.9" "$top/reference/blosc2/lib/libblosc2.so.9" "$@" |
  tee target/bench/kernels.txt
python3 - target/bench/kernels.txt <<'PY'
import math, sys
groups = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 7:
        groups.setdefault(f[0], []).append(float(f[6]))
for k, xs in groups.items():
    g = math.exp(sum(map(math.log, xs)) / len(xs))
    print("geomean %-13s %.3f  (%d cases, %d below 0.95, worst %.2f)" % (k, g, len(xs), sum(x < 0.95 for x in xs), min(xs)))
PY
