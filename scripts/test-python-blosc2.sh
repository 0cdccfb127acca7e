#!/usr/bin/env bash
# python-blosc2 4.14.1, the main client of this library, built from its source distribution
# against this library (installed into build/py-prefix), then its own test suite run with our
# libblosc2.so.9 (../shared/clients/python-blosc2/ has the build and run scripts).
#
#   scripts/test-python-blosc2.sh              the subset the test suite runs (SUBSET below); it
#                                              must reach every libblosc2 function the extension
#                                              imports, which the run checks (see below)
#   scripts/test-python-blosc2.sh --full       the whole suite (about 10,500 tests, 10+ minutes)
#   scripts/test-python-blosc2.sh -- ARGS...   pytest with your own arguments
#   REF=1 scripts/test-python-blosc2.sh ...    the same tests with the reference library
#   scripts/test-python-blosc2.sh --build-only only the build, into an already installed
#                                              build/py-prefix (scripts/test.sh runs it in the
#                                              background while other steps run)
#
# The subset run proves its reach: Python is made to load the extension with lazy binding
# (a sitecustomize in the venv), the dynamic loader logs each libblosc2 symbol the extension
# binds on its first call (LD_DEBUG=bindings), and every function the extension imports must
# appear there.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
clients=$(cd "$top/.." && pwd)/shared/clients/python-blosc2
prefix=$top/build/py-prefix
work=$top/build/pyb2

# The test files of the subset: together they call every libblosc2 function the extension
# imports that python-blosc2 can reach (measured per test file with the reference library and
# LD_DEBUG=bindings, then a greedy cover by time), plus c_tests/python/test_reach_extra.py
# for blosc2_vldecompress_block_ctx, which no test of the sdist calls.
SUBSET=(
  tests/test_objectarray.py tests/test_remote_array.py tests/test_schunk_get_slice_nchunks.py
  tests/test_python_blosc.py tests/test_schunk_reorder_offsets.py tests/test_tree_store.py
  tests/test_schunk_constructor.py tests/test_schunk_set_slice.py tests/test_compressors.py
  tests/test_ufilters.py tests/test_pandas_udf_engine.py tests/test_schunk.py
  tests/test_ucodecs.py tests/ndarray/test_resize.py tests/test_comp_info.py
  tests/ndarray/test_buffer.py tests/ndarray/test_getitem.py tests/ndarray/test_nans.py
  tests/ndarray/test_concat.py tests/ndarray/test_ndarray.py
  "$top/c_tests/python/test_reach_extra.py"
)
# Imported but unreachable from python-blosc2's Python code: b2nd_copy_buffer2 is only called
# by the UDF prefilter/postfilter helper, whose setters (_set_pref_udf/_set_postf_udf) nothing
# in python-blosc2 4.14.1 calls. It is covered by c_tests/test_b2nd_io.c instead.
UNREACHABLE=(b2nd_copy_buffer2)

mode=subset
args=()
case "${1:-}" in
  --full) mode=full; shift ;;
  --) mode=custom; shift; args=("$@") ;;
  --build-only) mode=build; shift ;;
  "") ;;
  *) echo "usage: $0 [--full | --build-only | -- PYTEST_ARGS...]" >&2; exit 2 ;;
esac

[ $mode = build ] || make -s install PREFIX="$prefix" >/dev/null
# Build once per header set: the extension links libblosc2.so.9 dynamically, so only a header
# change needs a rebuild (build.sh also checks that it loads the library of $prefix).
stamp=$(cat include/*.h include/blosc2/*.h | sha256sum | cut -c1-16)
if [ "$(cat "$work/.stamp" 2>/dev/null)" != "$stamp" ] || [ ! -x "$work/venv/bin/python" ]; then
  rm -rf "$work"
  "$clients/build.sh" "$prefix" "$work"
  echo "$stamp" > "$work/.stamp"
fi
[ $mode = build ] && exit 0
lib=$prefix/lib
[ -n "${REF:-}" ] && lib=$top/reference/blosc2/lib

case $mode in
  full) exec "$clients/run-tests.sh" "$work" "$lib" -n 2 ;;
  custom) exec "$clients/run-tests.sh" "$work" "$lib" "${args[@]}" ;;
esac

ext=$(ls "$work"/venv/lib/python3*/site-packages/blosc2/blosc2_ext*.so)
site=$(dirname "$(dirname "$ext")")
logs=$(mktemp -d)
trap 'rm -rf "$logs" "$site/sitecustomize.py"' EXIT
printf 'import os, sys\nsys.setdlopenflags(os.RTLD_LAZY)\n' > "$site/sitecustomize.py"
rc=0
# A test that runs 120 s has every thread's stack printed (faulthandler), and the run is cut
# at 15 minutes (it takes about 20 s): a hang shows where it is instead of stalling the suite.
LD_DEBUG=bindings LD_DEBUG_OUTPUT="$logs/ld" timeout -k 30 900 "$clients/run-tests.sh" "$work" "$lib" -n 2 \
  -o faulthandler_timeout=120 "${SUBSET[@]}" || rc=$?
nm -D "$ext" | awk '$1 == "U" && $2 ~ /^(blosc|b2nd)/ {print $2}' | sort -u > "$logs/imported"
cat "$logs"/ld.* | grep -F "$(basename "$ext")" | grep -F libblosc2.so.9 |
  sed -n "s/.*symbol \`\([A-Za-z0-9_]*\)'.*/\1/p" | sort -u > "$logs/reached"
printf '%s\n' "${UNREACHABLE[@]}" | sort > "$logs/unreachable"
missing=$(comm -23 "$logs/imported" "$logs/reached" | comm -23 - "$logs/unreachable" | tr '\n' ' ')
echo "python-blosc2 subset: reached $(comm -12 "$logs/imported" "$logs/reached" | wc -l) of $(wc -l < "$logs/imported") imported libblosc2 functions"
if [ -n "$missing" ]; then
  echo "not reached by the subset: $missing"
  rc=1
fi
exit $rc
