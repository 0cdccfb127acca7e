#!/usr/bin/env python3
"""Combine two bench outputs (ours, reference) into a markdown table and summary."""
import math, sys

def load(p):
    rows = {}
    for line in open(p):
        f = line.split()
        if len(f) != 9:
            continue
        rows[tuple(f[:5])] = (int(f[5]), int(f[6]), float(f[7]), float(f[8]))
    return rows

ours, ref = load(sys.argv[1]), load(sys.argv[2])
keys = [k for k in ours if k in ref and k[0] != "memcpy"]
print("| data | codec | filter | clevel | threads | ratio ours | ratio ref | comp GB/s ours | comp GB/s ref | x | decomp GB/s ours | decomp GB/s ref | x |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
lc, ld, worst = [], [], []
for k in keys:
    n, co, cs, ds = ours[k]
    _, cr, csr, dsr = ref[k]
    xc, xd = cs / csr, ds / dsr
    lc.append(math.log(xc)); ld.append(math.log(xd))
    worst.append((min(xc, xd), k))
    print(f"| {' | '.join(k)} | {n/co:.2f} | {n/cr:.2f} | {cs:.2f} | {csr:.2f} | {xc:.2f} | {ds:.2f} | {dsr:.2f} | {xd:.2f} |")
m = ours.get(("memcpy", "-", "-", "-", "-"))
print()
if m:
    print(f"memcpy: {m[2]:.2f} GB/s (ours run), {ref[('memcpy','-','-','-','-')][2]:.2f} GB/s (reference run)")
print(f"geometric mean speed ratio ours/reference: compression {math.exp(sum(lc)/len(lc)):.3f}x, decompression {math.exp(sum(ld)/len(ld)):.3f}x over {len(keys)} configurations")
worst.sort()
print("slowest relative configurations: " + "; ".join(f"{' '.join(k)} {x:.2f}x" for x, k in worst[:5]))
