#!/usr/bin/env bash
# The c-blosc2 2.x face (target/release/libblosc2.so.7, `make build`) against c-blosc2 2.23.1
# (reference/blosc2-2.23, scripts/fetch-reference-2x.sh):
#   1. exports: exactly the functions 2.23.1's headers declare (152), all of them exported by
#      2.23.1's own library too
#   2. interop2.c, compiled once against 2.23.1's headers, run with each library: every chunk
#      case, super-chunk and frame (memory, contiguous, sparse; appends, edits, refusals,
#      metalayers), b2nd arrays; the public struct fields are read through 2.23's layout
#   3. each library reads what both wrote; compare.py holds the outputs side by side, with the
#      deliberate differences in accepted.txt
# Exit status 0 only when every check passes. Negative control (must fail):
#   ABI2_PRELOAD=/tmp/sabotage_shim.so SABOTAGE=decompress c_tests/abi2/run.sh
# with the shim built as ../shared/interop/README.md says.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/c_tests/abi2"
"$top/scripts/fetch-reference-2x.sh" >/dev/null
ref="$top/reference/blosc2-2.23/blosc2"
ours="${ABI2_LIBDIR:-$top/target/release}"
[ -e "$ours/libblosc2.so.7" ] || { echo "no $ours/libblosc2.so.7 (make build)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# 1. exports
python3 - "$ref/include" > "$work/api.txt" <<'PY'
import glob, re, sys
names = set()
for f in glob.glob(sys.argv[1] + "/**/*.h", recursive=True):
    t = open(f).read()
    t = re.sub(r"/\*.*?\*/", "", t, flags=re.S)
    t = re.sub(r"//[^\n]*", "", t)
    for m in re.finditer(r"BLOSC_EXPORT\s+([^;{]*?)\(", t):
        n = re.findall(r"(\w+)\s*$", m.group(1).strip())
        if n and n[0] not in ("if", "__attribute__", "__declspec"):
            names.add(n[0])
print("\n".join(sorted(names)))
PY
nm -D --defined-only "$ours/libblosc2.so.7" | awk '$2 == "T" {print $3}' | sort > "$work/ours.txt"
nm -D --defined-only "$ref/lib/libblosc2.so.7" | awk '$2 == "T" {print $3}' | sort > "$work/ref.txt"
if diff "$work/api.txt" "$work/ours.txt" > "$work/exports.diff" && [ -z "$(comm -23 "$work/api.txt" "$work/ref.txt")" ]; then
  echo "exports: $(wc -l < "$work/ours.txt") functions, exactly 2.23.1's API"
else
  echo "FAIL exports (< 2.23.1's headers, > ours):"; head -20 "$work/exports.diff"; fail=1
fi
soname=$(readelf -d "$ours/libblosc2.so.7" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libblosc2.so.7 ] || { echo "FAIL SONAME $soname"; fail=1; }

# layout: what src/ffi/abi/layout.rs checks at compile time for the 2.x face is what 2.23.1's
# headers say (every field of blosc2_schunk; the other structs are the same as 3.3's)
cc -I"$ref/include" "$here/layout.c" -o "$work/layout" -L"$ref/lib" -l:libblosc2.so.7 && LD_LIBRARY_PATH="$ref/lib" "$work/layout" > "$work/layout-h.txt"
python3 - "$top/src/ffi/abi/layout.rs" > "$work/layout-rs.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r'feature = "abi2"\)\]\s*check_layout!\(blosc2_schunk, size (\d+), align \d+;(.*?)\);', t, re.S)
print("size", m.group(1))
for f, off in re.findall(r"(\w+) @ (\d+)", m.group(2)):
    print(f, "@", off)
PY
if diff "$work/layout-h.txt" "$work/layout-rs.txt" > "$work/layout.diff"; then
  echo "layout: blosc2_schunk, $(wc -l < "$work/layout-h.txt") size and offsets as in 2.23.1's blosc2.h"
else
  echo "FAIL layout (< 2.23.1's headers, > layout.rs):"; cat "$work/layout.diff"; fail=1
fi

# 2 and 3. the differential driver, built against 2.23.1's headers
cc -O1 -Wall -I"$ref/include" "$here/interop2.c" -o "$work/interop2" -L"$ref/lib" -l:libblosc2.so.7 -lm
run() {  # LIB MODE DIR (ABI2_PRELOAD: an LD_PRELOAD for our runs only, the negative control)
  local dir pre=
  [ "$1" = ref ] && dir="$ref/lib" || { dir="$ours"; pre="${ABI2_PRELOAD:-}"; }
  ( cd "$work" && LD_LIBRARY_PATH="$dir" LD_PRELOAD="$pre" timeout 600 ./interop2 "$2" "$3" )
}
run ref write ref > "$work/w-ref.txt"
run ours write ours > "$work/w-ours.txt"
# our library must really be the one serving the calls
LD_LIBRARY_PATH="$ours" LD_DEBUG=libs "$work/interop2" 2> "$work/ld.txt" >/dev/null || true
grep -q "calling init: $ours/libblosc2.so.7" "$work/ld.txt" \
  || { echo "FAIL interop2 did not load $ours/libblosc2.so.7"; fail=1; }
for lib in ref ours; do
  for writer in ref ours; do
    run "$lib" read "$writer" > "$work/r-$lib-$writer.txt"
  done
done
python3 "$here/compare.py" "$here/accepted.txt" "$work" || fail=1
exit $fail
