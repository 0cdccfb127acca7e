"""h5py + the HDF5 Blosc filter plugin (Debian's hdf5-filter-plugin-blosc-serial, filter id
32001, which links libblosc.so.1): write datasets with every compressor, shuffle and a few
clevels, read them back, and (with `read DIR`) read files another library wrote.
Prints one line per dataset and, last, which libblosc.so.1 the process mapped."""
import os
import sys

import h5py
import numpy as np

BLOSC = 32001
CODECS = {"blosclz": 0, "lz4": 1, "lz4hc": 2, "snappy": 3, "zlib": 4, "zstd": 5}


def data(kind, n=200_000):
    rng = np.random.default_rng(kind)
    if kind == 0:
        return np.arange(n, dtype="i8") // 3
    if kind == 1:
        return (np.sin(np.arange(n) / 50.0) * 1000).astype("f4")
    return rng.integers(0, 50, n).astype("u2")


def write(path):
    with h5py.File(path, "w") as f:
        for name, code in CODECS.items():
            for shuffle in (0, 1, 2):
                for clevel in (1, 5, 9):
                    for kind in range(3):
                        a = data(kind)
                        ds = f"{name}-{shuffle}-{clevel}-{kind}"
                        f.create_dataset(ds, data=a, chunks=(50_000,),
                                         compression=BLOSC,
                                         compression_opts=(0, 0, 0, 0, clevel, shuffle, code))


def read(path):
    bad = 0
    with h5py.File(path, "r") as f:
        for ds in sorted(f):
            kind = int(ds.rsplit("-", 1)[1])
            ok = np.array_equal(f[ds][...], data(kind))
            bad += not ok
            print(ds, "ok" if ok else "BAD", f[ds].id.get_storage_size())
    return bad


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "write":
        write(path)
    bad = read(path)
    libs = {line.split()[-1] for line in open("/proc/self/maps") if "libblosc.so" in line}
    print("mapped:", " ".join(sorted(libs)))
    sys.exit(1 if bad else 0)
