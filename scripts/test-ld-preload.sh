#!/usr/bin/env bash
# The LD_PRELOAD swap, proven: python-blosc2 4.14.1 built against the REFERENCE's own
# libblosc2 (reference/blosc2: headers, lib/, pkg-config), run with the reference's lib/ on
# LD_LIBRARY_PATH and our libblosc2.so.9 in LD_PRELOAD. Checks:
#   - a subset of python-blosc2's own tests passes;
#   - every libblosc2 binding the extension makes (LD_DEBUG=bindings) resolves to our file,
#     none to the reference's;
#   - /proc/self/maps of the process holds our libblosc2.so.9 and not the reference's (the
#     preloaded library already carries the SONAME the extension needs, so the loader never
#     opens the reference's).
# With --build-only it only builds (scripts/test.sh runs that in the background early).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
clients=$(cd "$top/.." && pwd)/shared/clients/python-blosc2
refprefix=$top/reference/blosc2
work=$top/build/pyb2-ref
ours=$top/target/release/libblosc2.so.9
scripts/fetch-reference.sh
test -e "$ours" || { echo "build first (make build)"; exit 1; }
stamp=$(cat "$top/reference/VERSION")
if [ "$(cat "$work/.stamp" 2>/dev/null)" != "$stamp" ] || [ ! -x "$work/venv/bin/python" ]; then
  rm -rf "$work"
  "$clients/build.sh" "$refprefix" "$work"
  echo "$stamp" > "$work/.stamp"
fi
[ "${1:-}" = --build-only ] && exit 0
ext=$(ls "$work"/venv/lib/python3*/site-packages/blosc2/blosc2_ext*.so)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
rc=0
LD_PRELOAD="$ours" LD_DEBUG=bindings LD_DEBUG_OUTPUT="$logs/ld" timeout -k 30 900 \
  "$clients/run-tests.sh" "$work" "$refprefix/lib" -q tests/test_schunk.py tests/test_compressors.py \
  tests/test_comp_info.py tests/ndarray/test_getitem.py tests/ndarray/test_concat.py || rc=$?
# Bindings from the extension to libblosc2 symbols: where did they go?
cat "$logs"/ld.* | grep -F "$(basename "$ext")" | grep -E "symbol \`(blosc|b2nd)" |
  sed -n 's/.* to \([^ ]*\) \[.*symbol `\([A-Za-z0-9_]*\).*/\1 \2/p' | sort -u > "$logs/bound"
n_ours=$(awk -v o="$ours" '$1 == o' "$logs/bound" | wc -l)
n_other=$(awk -v o="$ours" '$1 != o' "$logs/bound" | wc -l)
echo "bindings of the extension to libblosc2 functions: $n_ours to ours, $n_other elsewhere"
[ "$n_other" -eq 0 ] && [ "$n_ours" -gt 50 ] || { awk -v o="$ours" '$1 != o' "$logs/bound" | head; rc=1; }
maps=$(LD_PRELOAD="$ours" LD_LIBRARY_PATH="$refprefix/lib" "$work/venv/bin/python" -c '
import blosc2, numpy as np
a = blosc2.asarray(np.arange(10000))
assert (a[:] == np.arange(10000)).all()
print(" ".join(sorted({l.split()[-1] for l in open("/proc/self/maps") if "libblosc2" in l})))')
echo "mapped: $maps"
[ "$maps" = "$ours" ] || { echo "FAIL: expected only $ours mapped"; rc=1; }
[ $rc -eq 0 ] && echo "LD_PRELOAD swap: OK"
exit $rc
