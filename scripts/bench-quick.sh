#!/usr/bin/env bash
# Quick benchmark (a minute or two), to see a speed regression before it lands: the exported
# shuffle kernels, a 4 MiB memcpy and a dozen configurations of the matrix (bench/bench.c
# "quick" mode), run with this library and with the reference c-blosc2 3.3.5 alternating,
# QUICK_ROUNDS rounds (default 6, swapping which goes first), best of each (a busy spell
# of a shared machine only ever slows a run down). Prints ours,
# the reference and the ratio per line, the decompression of the int64 ramp against memcpy,
# and the geometric means. A benchmark, not a test: it never fails on speed.
# Expects `make build` done (uses target/release).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/build-bench.sh
budget=${QUICK_SECONDS:-0.08}
rounds=${QUICK_ROUNDS:-6}
out=target/bench/quick
rm -rf "$out"; mkdir -p "$out"
for i in $(seq 1 "$rounds"); do
  order="ours ref"; [ $((i % 2)) -eq 0 ] && order="ref ours"
  for side in $order; do
    lib=target/release; [ "$side" = ref ] && lib=reference/blosc2/lib
    LD_LIBRARY_PATH=$lib target/bench/bench quick "$budget" > "$out/$side.$i"
  done
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); best of $rounds rounds, GB/s"
python3 - "$out" "$rounds" <<'PY'
import math, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(side):
    runs = []
    for i in range(1, rounds + 1):
        runs.append({l.split()[1]: float(l.split()[2]) for l in open(f"{out}/{side}.{i}") if l.startswith("quick ")})
    return {k: max(r[k] for r in runs) for k in runs[0]}
ours, ref = load("ours"), load("ref")
print("%-46s %9s %9s %6s" % ("item", "ours", "ref", "x"))
groups = {"kernel": [], "compress": [], "decompress": []}
for k in ours:
    x = ours[k] / ref[k]
    print("%-46s %9.2f %9.2f %6.2f%s" % (k, ours[k], ref[k], x, "  <0.95" if x < 0.95 else ""))
    if k.startswith("kernel/"):
        groups["kernel"].append(x)
    elif k.endswith("/compress"):
        groups["compress"].append(x)
    elif k.endswith("/decompress"):
        groups["decompress"].append(x)
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
for name in ("ramp-i64/lz4/shuffle/5/1t/decompress", "ramp-i64/blosclz/shuffle/5/1t/decompress"):
    print("%s: ours %.0f%% of memcpy, reference %.0f%%" % (name, 100 * ours[name] / ours["memcpy-4MiB"], 100 * ref[name] / ref["memcpy-4MiB"]))
print("geometric mean ours/reference: kernels %.2fx, compression %.2fx, decompression %.2fx; lines below 0.95: %d of %d"
      % (g(groups["kernel"]), g(groups["compress"]), g(groups["decompress"]),
         sum(ours[k] / ref[k] < 0.95 for k in ours if k != "memcpy-4MiB"), len(ours) - 1))
PY
