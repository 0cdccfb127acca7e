#!/usr/bin/env bash
# Debian's programs that link c-blosc 1.x (libblosc.so.1), run on our libblosc.so.1 and on
# Debian's libblosc1, side by side:
#   python3-blosc 1.11.1   its own test suite (blosc.test())
#   numcodecs 0.11.0       tests/test_blosc.py and tests/test_shuffle.py
#   PyTables 3.7.0         every test selected by "blosc" in its table/array/index tests
#   h5py 3.7.0 + hdf5-filter-plugin-blosc-serial (filter 32001): write and read datasets with
#                          every compressor/shuffle/clevel; each library reads the other's file
# Each run checks from inside the process (/proc/self/maps) which libblosc.so.1 served it.
# Needs: apt-get install python3-blosc python3-numcodecs python3-tables python3-h5py
#        hdf5-filter-plugin-blosc-serial python3-pytest (the script installs them if it can).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ours="$top/target/release"
# The reference is the private copy of Debian's libblosc1 (scripts/fetch-reference-blosc1.sh),
# not whatever /usr/lib holds (which may be ours once our package is installed).
"$top/scripts/fetch-reference-blosc1.sh"
ref="$top/reference/blosc1/usr/lib/x86_64-linux-gnu"
test -e "$ours/libblosc.so.1" || { echo "build first (make build)"; exit 1; }
py=/usr/bin/python3
pkgs=(python3-blosc python3-numcodecs python3-tables python3-h5py hdf5-filter-plugin-blosc-serial python3-pytest)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null || { echo "cannot install ${missing[*]}"; exit 1; }
fi
export HDF5_PLUGIN_PATH=/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins
tdir=/usr/lib/python3/dist-packages/tables/tests
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
# The shared object that served the process: printed by a Python atexit hook.
maps='import atexit
def _which():
    libs = {l.split()[-1] for l in open("/proc/self/maps") if "libblosc.so" in l}
    print("MAPPED", " ".join(sorted(libs)))
atexit.register(_which)'
run_side() {  # side -> prints a summary line per client
  local side=$1 env=(LD_LIBRARY_PATH="$ref")
  [ "$side" = ours ] && env=(LD_LIBRARY_PATH="$ours")
  cd "$work"
  env "${env[@]}" $py -c "$maps
import blosc, sys
r = blosc.test()" > "$work/$side.blosc" 2>&1
  echo "python3-blosc: $(grep -E '^(OK|FAILED)' "$work/$side.blosc") $(grep -E '^Ran ' "$work/$side.blosc") | $(grep MAPPED "$work/$side.blosc")"
  env "${env[@]}" $py -c "$maps
import sys, pytest
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider',
  '/usr/lib/python3/dist-packages/numcodecs/tests/test_blosc.py',
  '/usr/lib/python3/dist-packages/numcodecs/tests/test_shuffle.py']))" > "$work/$side.numcodecs" 2>&1
  echo "numcodecs: $(grep -E 'passed|failed' "$work/$side.numcodecs" | tail -1) | $(grep MAPPED "$work/$side.numcodecs")"
  env "${env[@]}" $py -c "$maps
import sys, pytest
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-k', 'blosc or Blosc',
  *['$tdir/test_%s.py' % m for m in ('tables', 'array', 'carray', 'earray', 'vlarray',
    'create', 'basics', 'indexes', 'tablesMD')]]))" > "$work/$side.tables" 2>&1
  echo "PyTables: $(grep -E 'passed|failed' "$work/$side.tables" | tail -1) | $(grep MAPPED "$work/$side.tables")"
  env "${env[@]}" $py "$top/c_tests/blosc1/h5_blosc.py" write "$work/$side.h5" > "$work/$side.h5w" 2>&1
  echo "h5py+plugin write/read: $(grep -c ' ok ' "$work/$side.h5w") ok, $(grep -c ' BAD' "$work/$side.h5w") bad | $(grep mapped "$work/$side.h5w")"
}
run_side ref > "$work/ref.summary"
run_side ours > "$work/ours.summary"
# Cross: each library reads the file the other wrote.
LD_LIBRARY_PATH="$ours" $py "$top/c_tests/blosc1/h5_blosc.py" read "$work/ref.h5" > "$work/ours-reads-ref" 2>&1 || fail=1
LD_LIBRARY_PATH="$ref" $py "$top/c_tests/blosc1/h5_blosc.py" read "$work/ours.h5" > "$work/ref-reads-ours" 2>&1 || fail=1
echo "== Debian's libblosc1:"; cat "$work/ref.summary"
echo "== ours:"; cat "$work/ours.summary"
echo "== cross: ours read Debian's file: $(grep -c ' ok ' "$work/ours-reads-ref") ok; Debian's read ours: $(grep -c ' ok ' "$work/ref-reads-ours") ok"
# Same results (apart from the library path), and ours really served every ours run.
diff <(sed -E "s/\|.*//; s/ in [0-9.]+s//g" "$work/ref.summary") <(sed -E "s/\|.*//; s/ in [0-9.]+s//g" "$work/ours.summary") || { echo "FAIL: results differ"; fail=1; }
[ "$(grep -c "$ours/libblosc.so.1" "$work/ours.summary")" -eq 4 ] || { echo "FAIL: our library did not serve every client"; fail=1; }
[ "$(grep -c "$ref/libblosc.so.1" "$work/ref.summary")" -eq 4 ] || { echo "FAIL: the reference did not serve every reference run"; fail=1; }
for f in "$work"/ours.blosc "$work"/ours.numcodecs "$work"/ours.tables; do
  grep -qE '(^OK|passed)' "$f" && ! grep -qE '(FAILED|[0-9]+ failed)' "$f" || { echo "FAIL: $(basename "$f")"; tail -5 "$f"; fail=1; }
done
grep -q ' BAD' "$work/ours.h5w" "$work/ours-reads-ref" "$work/ref-reads-ours" && { echo "FAIL: h5 data"; fail=1; }
# Storage sizes of the datasets must agree except where codec library versions differ.
diff <(grep -E '^(blosclz|lz4|snappy)-' "$work/ref.h5w") <(grep -E '^(blosclz|lz4|snappy)-' "$work/ours.h5w") >/dev/null ||
  { echo "FAIL: blosclz/lz4/snappy dataset sizes differ"; fail=1; }
[ $fail -eq 0 ] && echo "blosc1 clients: OK"
exit $fail
