#!/usr/bin/env python3
"""Self-test for check_abi.py: reference-vs-itself must pass; a mutated copy
of the reference headers must report every mutation.

usage: selftest.py [--ref-include DIR] [--ref-lib PATH]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

# (file, old text, new text, item ids that must FAIL)
MUTATIONS = [
    ("blosc2.h", "  int32_t typesize;\n  //!< The type size (8).", "  uint32_t typesize;\n  //!< The type size (8).",
     ["T:blosc2_cparams.typesize"]),
    ("blosc2.h", "  int64_t change_tick;", "  int32_t change_tick;",
     ["S:blosc2_schunk", "F:blosc2_schunk.change_tick", "T:blosc2_schunk.change_tick"]),
    ("blosc2.h", "  int32_t chunksize;", "  int32_t chunk_size;",
     ["F:blosc2_schunk.chunksize", "T:blosc2_schunk.chunksize"]),
    ("blosc2.h", "  BLOSC2_ERROR_LOCK = -37,", "", ["C:BLOSC2_ERROR_LOCK"]),
    ("blosc2.h", '#define BLOSC_ZSTD_COMPNAME      "zstd"', "", ["C:BLOSC_ZSTD_COMPNAME"]),
    ("blosc2.h", "BLOSC_EXPORT int blosc2_compress(int clevel, int doshuffle, int32_t typesize,",
     "BLOSC_EXPORT int blosc2_compress(int clevel, int doshuffle, int64_t typesize,", ["FN:blosc2_compress"]),
    ("b2nd.h", "BLOSC_EXPORT int b2nd_squeeze(b2nd_array_t *array, b2nd_array_t **view);",
     "BLOSC_EXPORT int b2nd_squeeze(const b2nd_array_t *array, b2nd_array_t **view);", ["FN:b2nd_squeeze"]),
    ("blosc2.h", "  BLOSC_LZ4HC = 2,", "  BLOSC_LZ4HC = 3,", ["C:BLOSC_LZ4HC"]),
    ("blosc2.h", '#define BLOSC2_VERSION_STRING   "3.3.5"', '#define BLOSC2_VERSION_STRING   "3.3.6"',
     ["C:BLOSC2_VERSION_STRING", "A:BLOSC_VERSION_STRING"]),
    ("blosc2.h", "        BLOSC_BLOSCLZ, 0, 5, 0, 8, 1, 0,", "        BLOSC_BLOSCLZ, 0, 9, 0, 8, 1, 0,",
     ["D:BLOSC2_CPARAMS_DEFAULTS.clevel"]),
    ("blosc2.h", "BLOSC_EXPORT int blosc2_schunk_lock(blosc2_schunk *schunk);", "", ["FN:blosc2_schunk_lock"]),
    ("blosc2.h", "typedef int     (*blosc2_close_cb)(void *stream);", "typedef int64_t (*blosc2_close_cb)(void *stream);",
     ["Y:blosc2_close_cb"]),
    ("blosc2.h", "static inline int blosc2_meta_exists(blosc2_schunk *schunk, const char *name) {",
     "static inline int blosc2_meta_exists(blosc2_schunk *schunk, char *name) {",
     ["I:blosc2_meta_exists", "H:compiles-cleanly"]),
    ("b2nd.h", "#define B2ND_MAX_DIM 16", "enum { B2ND_MAX_DIM = 16 };", ["C:B2ND_MAX_DIM"]),
    ("blosc2.h", "#define BLOSC2_MAX_VLMETALAYERS (8 * 1024)", "#define BLOSC2_MAX_VLMETALAYERS (8u * 1024)",
     ["C:BLOSC2_MAX_VLMETALAYERS"]),
    ("blosc2/codecs-registry.h", "    char *decoder;", "    const char *decoder;", ["T:codec_info.decoder"]),
    ("blosc2.h", "#define blosc_compress blosc1_compress", "#define blosc_compress blosc2_compress",
     ["A:blosc_compress"]),
]


def run(ref, ours, lib):
    cmd = [sys.executable, os.path.join(HERE, "check_abi.py"), "--ref-include", ref, "--our-include", ours,
           "--our-lib", lib]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref-include", default=os.path.join(ROOT, "reference/blosc2/include"))
    ap.add_argument("--ref-lib", default=os.path.join(ROOT, "reference/blosc2/lib/libblosc2.so.9"))
    a = ap.parse_args()
    ok = True
    rc, out = run(a.ref_include, a.ref_include, a.ref_lib)
    last = out.strip().splitlines()[-1]
    print(f"identity run: rc={rc} {last}")
    if rc != 0 or not last.endswith(" 0 failed"):
        print(out)
        ok = False
    tmp = tempfile.mkdtemp(prefix="abi_selftest.")
    try:
        mut = os.path.join(tmp, "include")
        shutil.copytree(a.ref_include, mut)
        expected = []
        for f, old, new, ids in MUTATIONS:
            path = os.path.join(mut, f)
            with open(path) as fh:
                s = fh.read()
            if old not in s:
                print(f"mutation target not found in {f}: {old!r}")
                ok = False
                continue
            with open(path, "w") as fh:
                fh.write(s.replace(old, new, 1))
            expected += ids
        rc, out = run(a.ref_include, mut, a.ref_lib)
        failed = {l.split()[1].rstrip(":") for l in out.splitlines() if l.startswith("  FAIL ")}
        missing = [i for i in expected if i not in failed]
        print(f"mutated run: rc={rc} {out.strip().splitlines()[-1]}; "
              f"{len(expected) - len(missing)}/{len(expected)} expected failures reported")
        if rc == 0 or missing:
            print("NOT reported:", missing)
            ok = False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("selftest:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
