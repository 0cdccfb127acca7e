"""Calls python-blosc2 makes into libblosc2 that its own test suite never reaches (measured
with the reference library): run by scripts/test-python-blosc2.sh with the subset, so that
every function the extension imports is exercised against our library."""
import numpy as np

import blosc2
from blosc2 import blosc2_ext


def test_vldecompress_block():
    # blosc2_vldecompress_block_ctx
    blocks = [b"alpha" * 40, b"beta" * 7, bytes(range(256)) * 3]
    chunk = blosc2_ext.vlcompress(blocks)
    assert blosc2_ext.vldecompress(chunk) == blocks
    for i, b in enumerate(blocks):
        assert bytes(blosc2_ext.vldecompress_block(chunk, i)) == b


def test_udf_on_padded_blocks():
    # b2nd_copy_buffer2: a lazy UDF writes the padded edge blocks through it
    def udf(inputs, output, offset):
        output[:] = inputs[0] * 2 + 1

    a = blosc2.asarray(np.arange(37 * 23, dtype=np.int32).reshape(37, 23), chunks=(16, 12), blocks=(7, 5))
    expr = blosc2.lazyudf(udf, (a,), np.int32)
    res = expr.compute()
    np.testing.assert_array_equal(res[...], a[...] * 2 + 1)
