#!/usr/bin/env python3
"""Combine bench outputs into a markdown table and summary.

Usage: compare.py OURS.txt[,OURS2.txt...] REF.txt[,REF2.txt...] -- several runs per side are
merged per configuration: the median speed of three or more runs, the best of one or two
(runs alternate between the libraries, so load from other processes hits both alike)."""
import math, sys

def b2nd_table(ours_arg, ref_arg):
    """compare.py --b2nd OURS[,..] REF[,..]: the b2nd slice benchmark (best time per row)."""
    def load_b2nd(arg):
        rows = {}
        for p in arg.split(","):
            for line in open(p):
                f = line.split()
                if len(f) != 8 or f[0] != "b2nd":
                    continue
                k, t = tuple(f[1:5]), float(f[6])
                rows[k] = (int(f[5]), min(t, rows[k][1]) if k in rows else t)
        return rows
    ours, ref = load_b2nd(ours_arg), load_b2nd(ref_arg)
    print("| array | storage | slice | op | bytes | us/call ours | us/call ref | x (ref time / ours) |")
    print("|---|---|---|---|---|---|---|---|")
    xs = []
    for k in ours:
        if k not in ref:
            continue
        x = ref[k][1] / ours[k][1]
        xs.append((x, k))
        print(f"| {' | '.join(k)} | {ours[k][0]} | {ours[k][1]*1e6:.1f} | {ref[k][1]*1e6:.1f} | {x:.2f} |")
    if xs:
        g = math.exp(sum(math.log(x) for x, _ in xs) / len(xs))
        print(f"\ngeometric mean speed ratio ours/reference: {g:.3f}x over {len(xs)} configurations; "
              f"slowest: " + "; ".join(f"{' '.join(k)} {x:.2f}x" for x, k in sorted(xs)[:3]))

def plugins_table(ours_arg, ref_arg):
    """compare.py --plugins OURS[,..] REF[,..]: the plugin benchmark (best speed per row)."""
    def load_p(arg):
        rows = {}
        for p in arg.split(","):
            for line in open(p):
                f = line.split()
                if len(f) != 8 or f[0] != "plugin":
                    continue
                k = tuple(f[1:4])
                v = (int(f[4]), int(f[5]), float(f[6]), float(f[7]))
                if k in rows:
                    v = (v[0], v[1], max(v[2], rows[k][2]), max(v[3], rows[k][3]))
                rows[k] = v
        return rows
    ours, ref = load_p(ours_arg), load_p(ref_arg)
    print("| plugin | data | meta | ratio ours | ratio ref | comp GB/s ours | comp GB/s ref | x | decomp GB/s ours | decomp GB/s ref | x |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    xs = []
    for k in ours:
        if k not in ref:
            continue
        n, co, cs, ds = ours[k]
        _, cr, csr, dsr = ref[k]
        xs += [cs / csr, ds / dsr]
        print(f"| {' | '.join(k)} | {n/co:.2f} | {n/cr:.2f} | {cs:.3f} | {csr:.3f} | {cs/csr:.2f} | {ds:.3f} | {dsr:.3f} | {ds/dsr:.2f} |")
    if xs:
        print(f"\ngeometric mean speed ratio ours/reference: {math.exp(sum(math.log(x) for x in xs) / len(xs)):.3f}x; slowest {min(xs):.2f}x")

if len(sys.argv) > 1 and sys.argv[1] == "--plugins":
    plugins_table(sys.argv[2], sys.argv[3])
    sys.exit(0)

if len(sys.argv) > 1 and sys.argv[1] == "--b2nd":
    b2nd_table(sys.argv[2], sys.argv[3])
    sys.exit(0)

def load(p):
    rows = {}
    for line in open(p):
        f = line.split()
        if len(f) != 9:
            continue
        k = tuple(f[:5])
        v = (int(f[5]), int(f[6]), float(f[7]), float(f[8]))
        if k in rows:  # memcpy is measured once per codec pass: keep the best
            v = (v[0], v[1], max(v[2], rows[k][2]), max(v[3], rows[k][3]))
        rows[k] = v
    return rows

def load_many(arg):
    """Each configuration's speeds over the runs: the median of three or more runs (a run
    of one library sits between runs of the other, so a slow spell of the machine moves one
    run, not the median), the best of one or two."""
    runs = {}
    for p in arg.split(","):
        for k, v in load(p).items():
            runs.setdefault(k, []).append(v)
    def pick(vals):
        if len(vals) >= 3:
            return sorted(vals)[len(vals) // 2]
        return max(vals)
    return {k: (v[0][0], v[0][1], pick([x[2] for x in v]), pick([x[3] for x in v])) for k, v in runs.items()}

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
print(f"configurations below 0.8x (compression or decompression): {sum(1 for x, _ in worst if x < 0.8)}")
print()
print("| codec | compression x | decompression x | slowest compression x | slowest decompression x |")
print("|---|---|---|---|---|")
for codec in dict.fromkeys(k[1] for k in keys):
    ks = [k for k in keys if k[1] == codec]
    xc = [ours[k][2] / ref[k][2] for k in ks]
    xd = [ours[k][3] / ref[k][3] for k in ks]
    g = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
    print(f"| {codec} | {g(xc):.3f} | {g(xd):.3f} | {min(xc):.2f} | {min(xd):.2f} |")

# The README's summary: one thread, clevel 5, per codec x filter, geometric mean over the
# data sets other than random bytes.
print()
print("| codec | filter | comp GB/s ours | comp GB/s ref | x | decomp GB/s ours | decomp GB/s ref | x | ratio ours | ratio ref |")
print("|---|---|---|---|---|---|---|---|---|---|")
def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))
for codec in dict.fromkeys(k[1] for k in keys):
    for filt in dict.fromkeys(k[2] for k in keys):
        ks = [k for k in keys if k[1] == codec and k[2] == filt and k[3] == "5" and k[4] == "1" and k[0] != "random"]
        if not ks:
            continue
        co, cr = gm([ours[k][2] for k in ks]), gm([ref[k][2] for k in ks])
        do, dr = gm([ours[k][3] for k in ks]), gm([ref[k][3] for k in ks])
        ro, rr = gm([ours[k][0] / ours[k][1] for k in ks]), gm([ref[k][0] / ref[k][1] for k in ks])
        print(f"| {codec} | {filt} | {co:.2f} | {cr:.2f} | {co/cr:.2f} | {do:.2f} | {dr:.2f} | {do/dr:.2f} | {ro:.2f} | {rr:.2f} |")
for nt in ("1", "2"):
    ks = [k for k in keys if k[4] == nt]
    if not ks:  # the filter pipelines run on one thread only
        continue
    print(f"\nnthreads {nt} ({len(ks)} configurations): compression {gm([ours[k][2] / ref[k][2] for k in ks]):.3f}x, "
          f"decompression {gm([ours[k][3] / ref[k][3] for k in ks]):.3f}x")
