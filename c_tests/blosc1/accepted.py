#!/usr/bin/env python3
"""Normalizes the differential driver's output (c_tests/blosc1/diff.c) before the reference's
and ours are compared: the only differences the test accepts, each with its reason. Every
other field of every line must be equal."""
import re, sys
# Codec streams whose bytes depend on the codec library's version (the reference links
# Debian's zlib 1.2.13, zstd 1.5.4, lz4 1.9.4; we bundle zlib-ng, zstd 1.5.7, lz4 1.10.0):
# compare everything but the stream bytes and the sizes they produce.
acc = re.compile(r'^[CSR] (zlib|zstd|lz4hc/l[12])/')
for line in open(sys.argv[1]):
    if acc.match(line):
        line = re.sub(r' rc=-?\d+', ' rc=*', line)
        line = re.sub(r' h=[0-9a-f]+', ' h=*', line)
        # ...and whether the result was stored raw (flag 2) when one library's stream fits
        # and the other's does not.
        line = re.sub(r' info=(\d+)/(\d+)/(\d+)/(\d+)/(\d+)/',
                      lambda m: ' info=%s/*/%s/%s/%d/' % (m[1], m[3], m[4], int(m[5]) & ~2), line)
        # With a destination smaller than the input, whether it fits at all depends on
        # the stream sizes too.
        if re.search(r'/d[12]/', line):
            line = line.split(' rc=')[0] + '\n'
    # c-blosc 1.x splits blocks of any typesize with BLOSC_ALWAYS_SPLIT but reads split
    # blocks only for typesizes up to 16: whether such a chunk reads back depends on whether
    # it was stored raw, which depends on the stream sizes.
    m = re.match(r'^S (zlib|zstd|lz4hc)/l\d/s\d/t(\d+)/.*/p1/', line)
    if m and int(m[2]) > 16:
        line = line.replace(' rt=BAD', ' rt=ok')
    # With several threads c-blosc 1.x places blocks in the order they finish: the bytes of a
    # chunk vary from run to run, its size does not.
    if re.match(r'^env .*BLOSC_NTHREADS=([2-9]|\d\d)', line):
        line = re.sub(r' h=[0-9a-f]+', ' h=*', line)
    # A damaged zstd stream that still decodes to the right length decodes to different
    # garbage in zstd 1.5.4 and 1.5.7: compare the return codes only.
    if line.startswith('M zstd/'):
        line = re.sub(r'(=-?\d+):[0-9a-f]{16}', r'\1', line)
    sys.stdout.write(line)
