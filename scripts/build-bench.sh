#!/usr/bin/env bash
# Compile bench/bench.c against include/ into target/bench/bench (linked to target/release;
# run it with either library on LD_LIBRARY_PATH, or with both through `bench pair`), after
# fetching the reference it compares with. Expects `make build` done. Used by bench.sh,
# bench-quick.sh and pgo-train.sh.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/fetch-reference.sh >/dev/null
[ -f target/release/libblosc2.so.9 ] || { echo "run make build first" >&2; exit 2; }
mkdir -p target/bench
gcc -O2 -std=gnu11 -Iinclude -o target/bench/bench bench/bench.c -Ltarget/release -l:libblosc2.so.9 -lm -ldl
