#!/usr/bin/env python3
"""Combine bench outputs into a markdown table and summary.

Usage: compare.py OURS.txt[,OURS2.txt...] REF.txt[,REF2.txt...] -- several runs per side are
merged by taking each configuration's best speed (runs alternate between the libraries, so
load from other processes hits both alike)."""
import math, sys

def load(p):
    rows = {}
    for line in open(p):
        f = line.split()
        if len(f) != 9:
            continue
        rows[tuple(f[:5])] = (int(f[5]), int(f[6]), float(f[7]), float(f[8]))
    return rows

def load_many(arg):
    merged = {}
    for p in arg.split(","):
        for k, v in load(p).items():
            if k in merged:
                m = merged[k]
                merged[k] = (v[0], v[1], max(m[2], v[2]), max(m[3], v[3]))
            else:
                merged[k] = v
    return merged

ours, ref = load_many(sys.argv[1]), load_many(sys.argv[2])
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
