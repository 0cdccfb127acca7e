#!/usr/bin/env bash
# Speed of our libblosc.so.1 against Debian 12's c-blosc 1.21.3 (reference/blosc1/):
# bench/bench1.c compiled once, both libraries loaded in one process (bench1 pair, dlopen'd
# side by side) and each configuration measured with one and then the other, codec by codec,
# swapping which goes first each round; best of BENCH_RUNS rounds. (Until 2026-11-28 each
# library ran in its own process, and this shared machine moved a library's figures by up
# to 2x from one process to the next.) Prints a Markdown table (speeds in GB/s of
# uncompressed data, x = ours / reference) and the geometric means.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/fetch-reference-blosc1.sh
REF="$top/reference/blosc1/usr/lib/x86_64-linux-gnu"
OURS="$top/target/release"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -I reference/blosc1/usr/include -o "$work/bench1" bench/bench1.c -L "$REF" -l:libblosc.so.1 -lm -ldl
runs=${BENCH_RUNS:-2}
for r in $(seq "$runs"); do
  order=$([ $((r % 2)) -eq 1 ] && echo ref-first || echo ours-first)
  for codec in blosclz lz4 lz4hc snappy zlib zstd; do
    LD_LIBRARY_PATH="$REF" "$work/bench1" pair "$OURS/libblosc.so.1" "$REF/libblosc.so.1" "$codec" "$order" \
      >> "$work/all.txt" 2>> "$work/origin.txt"
  done
done
echo "libraries measured (dladdr of blosc_compress):"
sort -u "$work/origin.txt" | sed 's/^/  /'
echo
python3 - "$work/all.txt" <<'PY'
import sys, math
best = {}
for line in open(sys.argv[1]):
    side, *key, ratio, c, d = line.split()
    k = tuple(key)
    b = best.setdefault((side, k), [0.0, 0.0, 0.0])
    b[0] = float(ratio); b[1] = max(b[1], float(c)); b[2] = max(b[2], float(d))
keys = sorted({k for (_, k) in best}, key=lambda k: (k[0], k[1], k[2], int(k[3]), int(k[4])))
print("| data | codec | filter | clevel | threads | ratio ours | ratio ref | comp ours | comp ref | x | decomp ours | decomp ref | x |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
xc, xd = [], []
for k in keys:
    o, r = best[("ours", k)], best[("ref", k)]
    cx, dx = o[1] / r[1], o[2] / r[2]
    xc.append(cx); xd.append(dx)
    print("| %s | %s | %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (*k, o[0], r[0], o[1], r[1], cx, o[2], r[2], dx))
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
print()
print("geometric mean ours/reference: compression %.2fx, decompression %.2fx over %d configurations; "
      "rows below 0.95x: compression %d, decompression %d" % (g(xc), g(xd), len(keys), sum(x < 0.95 for x in xc), sum(x < 0.95 for x in xd)))
PY
