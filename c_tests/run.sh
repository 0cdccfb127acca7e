#!/usr/bin/env bash
# Build every c_tests/*.c against include/ and run it with our library; programs marked
#   // c_tests: differential      also run against the reference library (LD_LIBRARY_PATH swap)
#   // c_tests: compare-output    ... and their stdout must be identical for both libraries.
# Prints "c_tests: N passed, M failed" and exits non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ours="$top/target/release"
ref="$top/reference/blosc2/lib"
bin="$top/c_tests/bin"
mkdir -p "$bin"
pass=0; fail=0
failed=()
ok()   { pass=$((pass+1)); }
bad()  { fail=$((fail+1)); failed+=("$1"); echo "FAIL: $1"; }

if [ ! -f "$ours/libblosc2.so.9" ]; then
  echo "missing $ours/libblosc2.so.9 (run: make build)"; exit 2
fi
have_ref=1
if [ ! -f "$ref/libblosc2.so.9" ]; then
  have_ref=0
  if [ -n "${CI:-}" ]; then echo "reference library missing under CI"; exit 2; fi
  echo "note: reference library missing, differential runs skipped (scripts/fetch-reference.sh)"
fi

# Plugin libraries for test_plugins.c: c_tests/plugins/NAME.c -> bin/libblosc2_NAME.so (found
# through LD_LIBRARY_PATH), and one more copy of the codec that only a Python package
# blosc2_pyplug (bin/py, on PYTHONPATH) knows the path of, as the reference's plugin search has it.
# It prints the path without a newline, as real plugin packages do (the reference would keep
# a trailing newline in the path and fail to load it; this library trims it).
for p in "$top"/c_tests/plugins/*.c; do
  pname=$(basename "$p" .c)
  gcc -shared -fPIC -O1 -I"$top/include" -o "$bin/libblosc2_$pname.so" "$p" || bad "plugin $pname (build)"
done
mkdir -p "$bin/pyplug" "$bin/py"
gcc -shared -fPIC -O1 -I"$top/include" -o "$bin/pyplug/libblosc2_pyplug.so" "$top/c_tests/plugins/myplug.c" || bad "plugin pyplug (build)"
printf 'def print_libpath():\n    print("%s", end="")\n' "$bin/pyplug/libblosc2_pyplug.so" > "$bin/py/blosc2_pyplug.py"
export PYTHONPATH="$bin/py"

for src in "$top"/c_tests/*.c; do
  name=$(basename "$src" .c)
  exe="$bin/$name"
  if ! gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -I"$top/include" \
       -o "$exe" "$src" -L"$ours" -l:libblosc2.so.9 -lm -lpthread 2>"$bin/$name.build.log"; then
    cat "$bin/$name.build.log"; bad "$name (build)"; continue
  fi
  out_ours=$(cd "$bin" && LD_LIBRARY_PATH="$ours:$bin" BLOSC_TEST_IMPL=ours timeout 300 "$exe" 2>"$bin/$name.ours.err")
  rc=$?
  if [ $rc -ne 0 ]; then cat "$bin/$name.ours.err"; echo "$out_ours" | tail -5; bad "$name (ours, rc=$rc)"; continue; fi
  ok
  if grep -q "c_tests: differential\|c_tests: compare-output" "$src" && [ $have_ref = 1 ]; then
    out_ref=$(cd "$bin" && LD_LIBRARY_PATH="$ref:$bin" BLOSC_TEST_IMPL=reference timeout 300 "$exe" 2>"$bin/$name.ref.err")
    rc=$?
    if [ $rc -ne 0 ]; then cat "$bin/$name.ref.err"; bad "$name (reference, rc=$rc)"; continue; fi
    ok
    if grep -q "c_tests: compare-output" "$src"; then
      if [ "$out_ours" != "$out_ref" ]; then
        diff <(echo "$out_ours") <(echo "$out_ref") | head -20
        bad "$name (output differs from reference)"
      else
        ok
      fi
    fi
  fi
done

echo "c_tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
