#!/usr/bin/env bash
# Regenerate the public C headers in include/ from the Rust ABI definitions (src/ffi/abi/),
# the extern "C" functions of src/ffi/ and the hand-written C text in src/ffi/abi/c/.
# Run it after changing any of those, then commit include/. `cargo test --test headers`
# fails while the committed headers are stale.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BLOSC2_BLESS_HEADERS=1 cargo test --quiet --test headers -- --test-threads=1 "$@"
echo "headers regenerated in $top/include"
