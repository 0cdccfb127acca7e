#!/usr/bin/env bash
# The shared library exports public API names only: every exported name must be one of the
# reference's 164 public functions (nothing from Rust std or the codec libraries leaks).
# Also checks the SONAME. Lists the public functions not exported yet.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
so="$top/target/release/libblosc2.so.9"
list="$top/../shared/abi/exported-symbols.txt"
[ -f "$list" ] || list="$top/c_tests/abi/exported-symbols.txt"
fail=0
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libblosc2.so.9" ]; then echo "FAIL: SONAME is '$soname'"; fail=1; fi
exports=$(nm -D --defined-only "$so" | awk '{print $NF}' | grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' | sort -u)
extra=$(comm -23 <(echo "$exports") <(sort -u "$list"))
missing=$(comm -13 <(echo "$exports") <(sort -u "$list"))
if [ -n "$extra" ]; then echo "FAIL: non-public exports:"; echo "$extra" | head -40; fail=1; fi
echo "exports: $(echo "$exports" | wc -l) of $(wc -l < "$list") public functions exported"
if [ -n "$missing" ]; then echo "not exported yet: $(echo "$missing" | tr '\n' ' ')"; fi
exit $fail
