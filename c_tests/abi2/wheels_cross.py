#!/usr/bin/env python3
"""Files one c-blosc2 build writes through PyTables and imagecodecs, read by another.

usage: wheels_cross.py write DIR | read DIR
write: a PyTables file with Blosc2-compressed tables and arrays (several codecs, shuffles),
       and imagecodecs blosc2 encodings, into DIR; read: check them against the same data.
Run once per library (bundled 2.23, or ours in LD_PRELOAD) by scripts/test-wheels-2x.sh."""
import os
import sys

import imagecodecs
import numpy as np
import tables

mode, d = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
ramp = np.arange(300_000, dtype="f8") / 7
ints = (np.arange(250_000) % 1000).astype("i4")
noisy = rng.integers(0, 50, 200_000, dtype="u2")
table_rows = np.zeros(50_000, dtype=[("a", "i8"), ("b", "f4"), ("c", "S6")])
table_rows["a"] = np.arange(50_000)
table_rows["b"] = np.arange(50_000) / 3
table_rows["c"] = [b"row%03d" % (i % 1000) for i in range(50_000)]
codecs = ["blosc2:blosclz", "blosc2:lz4", "blosc2:lz4hc", "blosc2:zlib", "blosc2:zstd"]
h5 = os.path.join(d, "pytables.h5")

if mode == "write":
    os.makedirs(d, exist_ok=True)
    with tables.open_file(h5, "w") as f:
        for i, lib in enumerate(codecs):
            filt = tables.Filters(complevel=5, complib=lib, shuffle=i % 2 == 0, bitshuffle=i % 2 == 1)
            name = lib.split(":")[1]
            f.create_carray("/", f"ramp_{name}", obj=ramp, filters=filt, chunkshape=(40_000,))
            f.create_earray("/", f"ints_{name}", obj=ints, filters=filt, chunkshape=(30_000,))
            f.create_table("/", f"table_{name}", obj=table_rows, filters=filt, chunkshape=(4_000,))
            f.create_carray("/", f"noisy2d_{name}", obj=noisy.reshape(400, 500), filters=filt,
                            chunkshape=(100, 125))
    for i, (name, arr) in enumerate([("ramp", ramp), ("ints", ints), ("noisy", noisy)]):
        for level in (1, 5, 9):
            for codec in ("blosclz", "lz4", "zstd"):
                enc = imagecodecs.blosc2_encode(arr, level=level, compressor=codec,
                                                typesize=arr.itemsize, shuffle=i % 3)
                with open(os.path.join(d, f"ic_{name}_{codec}_{level}.b2"), "wb") as fh:
                    fh.write(enc)
    print("written", len(os.listdir(d)), "files")
else:
    bad = 0
    with tables.open_file(h5, "r") as f:
        for lib in codecs:
            name = lib.split(":")[1]
            checks = [
                (f.get_node(f"/ramp_{name}")[:], ramp),
                (f.get_node(f"/ints_{name}")[:], ints),
                (f.get_node(f"/table_{name}").read(), table_rows),
                (f.get_node(f"/noisy2d_{name}")[:], noisy.reshape(400, 500)),
                # partial reads go through the b2nd slice path
                (f.get_node(f"/noisy2d_{name}")[37:211, 99:301], noisy.reshape(400, 500)[37:211, 99:301]),
                (f.get_node(f"/ramp_{name}")[12345:234567:7], ramp[12345:234567:7]),
                (f.get_node(f"/table_{name}").read_where("(a > 1000) & (a < 2000)"),
                 table_rows[1001:2000]),
            ]
            for got, want in checks:
                if not np.array_equal(got, want):
                    bad += 1
                    print("MISMATCH", name)
    n = 0
    for i, (name, arr) in enumerate([("ramp", ramp), ("ints", ints), ("noisy", noisy)]):
        for level in (1, 5, 9):
            for codec in ("blosclz", "lz4", "zstd"):
                with open(os.path.join(d, f"ic_{name}_{codec}_{level}.b2"), "rb") as fh:
                    got = imagecodecs.blosc2_decode(fh.read())
                n += 1
                if bytes(got) != arr.tobytes():
                    bad += 1
                    print("MISMATCH imagecodecs", name, codec, level)
    print(f"read: {len(codecs) * 7} PyTables checks, {n} imagecodecs buffers, {bad} bad")
    sys.exit(1 if bad else 0)
