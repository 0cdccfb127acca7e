#!/usr/bin/env bash
# Record pgo/codecs.proftext, the profile clang 19 builds zstd and lz4hc.c with
# (scripts/cc-x86_64, README "Codec builds"). Builds an instrumented library in
# target/pgo-gen (LIBBLOSC2_PGO=generate), runs the benchmark's compression and
# decompression matrix for LZ4HC and zstd through it (bench pair, short budget: every data
# set, filter, clevel and thread count once or a few times), and merges the counters.
# Needs clang-19 and llvm-profdata-19 (Debian 12: apt install clang-19 llvm-19). Takes about
# 15 minutes on a 2-core machine. Rebuild afterwards with
# `cargo clean -p zstd-sys -p lz4-sys && make build` (build scripts do not watch the profile).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
for t in clang-19 llvm-profdata-19; do
  command -v "$t" >/dev/null || { echo "pgo-train: $t is not installed" >&2; exit 1; }
done
make -s build
scripts/build-bench.sh
runtime=$(clang-19 -print-file-name=libclang_rt.profile-x86_64.a)
[ -f "$runtime" ] || runtime=$(clang-19 -print-runtime-dir)/libclang_rt.profile-x86_64.a
gen=$top/target/pgo-gen
# The instrumented objects write their counters at exit through the profile runtime, which
# only registers itself when __llvm_profile_runtime is pulled in.
LIBBLOSC2_PGO=generate CARGO_TARGET_DIR=$gen \
  RUSTFLAGS="-C link-arg=-Wl,-u,__llvm_profile_runtime -C link-arg=$runtime" \
  cargo build --release --lib -p libblosc2
raw=$gen/profraw
rm -rf "$raw"; mkdir -p "$raw"
for c in lz4hc zstd; do
  LD_LIBRARY_PATH=target/release LLVM_PROFILE_FILE="$raw/%p-%m.profraw" \
    target/bench/bench pair "$gen/release/libblosc2.so" "$top/reference/blosc2/lib/libblosc2.so.9" \
    0.01 ../shared/fixtures/raw/rainfall-grid-150x150.bin "$c" ours-first > /dev/null
done
ls "$raw"/*.profraw > /dev/null
mkdir -p pgo
llvm-profdata-19 merge --text -o pgo/codecs.proftext "$raw"/*.profraw
echo "pgo-train: wrote pgo/codecs.proftext ($(wc -c < pgo/codecs.proftext) bytes)"
