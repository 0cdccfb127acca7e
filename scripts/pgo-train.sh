#!/usr/bin/env bash
# Record the profiles clang 19 builds codec code with (scripts/cc-x86_64, README "Codec
# builds"): pgo/codecs.proftext for zstd and lz4hc.c, pgo/inflate.proftext for zlib-ng's
# decoder. Builds an instrumented library in target/pgo-gen (LIBBLOSC2_PGO=generate), runs
# the benchmark's compression and decompression matrix through it (bench pair, short
# budget: every data set, filter, clevel and thread count once or a few times) for LZ4HC and
# zstd, or for zlib, and merges the counters.
#   scripts/pgo-train.sh [codecs|inflate|all]     (default all)
#   scripts/pgo-train.sh refresh-codecs
# refresh-codecs records as codecs does but keeps pgo/codecs.proftext's records, taking from
# the new recording only the functions that are new (with a count above zero) or whose code
# changed (another hash): what a patch to a profiled file needs. A whole new recording built
# LZ4HC up to 12% slower (README, "LZ4HC's chain walk apart").
# The inflate profile is sparse (functions never run are left out, so that they build as
# without a profile instead of as cold code: the AVX-512 and SSE variants of inflate_fast,
# which the training machine may not run). Needs clang-19 and llvm-profdata-19 (Debian 12:
# apt install clang-19 llvm-19). Takes about 15 minutes (codecs) and 2 minutes (inflate) on
# a 2-core machine. Rebuild afterwards with
# `cargo clean -p zstd-sys -p lz4-sys -p libz-sys && make build` (build scripts do not watch
# the profiles).
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
# The codec crates' build scripts do not watch the wrapper or LIBBLOSC2_PGO: rebuild them.
CARGO_TARGET_DIR=$gen cargo clean --release -p zstd-sys -p lz4-sys -p libz-sys 2>/dev/null || true
# The instrumented objects write their counters at exit through the profile runtime, which
# only registers itself when __llvm_profile_runtime is pulled in.
LIBBLOSC2_PGO=generate CARGO_TARGET_DIR=$gen \
  RUSTFLAGS="-C link-arg=-Wl,-u,__llvm_profile_runtime -C link-arg=$runtime" \
  cargo build --release --lib -p libblosc2
# run OUT CODEC... [merge flags]: the matrix of each codec through the instrumented library,
# counters merged into pgo/OUT.proftext.
run() {
  local out=$1; shift
  local raw=$gen/profraw-$out codecs=() flags=()
  for a in "$@"; do case $a in -*) flags+=("$a") ;; *) codecs+=("$a") ;; esac; done
  rm -rf "$raw"; mkdir -p "$raw"
  for c in "${codecs[@]}"; do
    LD_LIBRARY_PATH=target/release LLVM_PROFILE_FILE="$raw/%p-%m.profraw" \
      target/bench/bench pair "$gen/release/libblosc2.so" "$top/reference/blosc2/lib/libblosc2.so.9" \
      0.01 ../shared/fixtures/raw/rainfall-grid-150x150.bin "$c" ours-first > /dev/null
  done
  ls "$raw"/*.profraw > /dev/null
  mkdir -p pgo
  llvm-profdata-19 merge --text "${flags[@]}" -o "$gen/$out.proftext" "$raw"/*.profraw
  if [ "$refresh" = 1 ]; then
    refresh_records "pgo/$out.proftext" "$gen/$out.proftext" > "$gen/$out.refreshed"
    mv -f "$gen/$out.refreshed" "pgo/$out.proftext"
  else
    cp "$gen/$out.proftext" "pgo/$out.proftext"
  fi
  echo "pgo-train: wrote pgo/$out.proftext ($(wc -c < "pgo/$out.proftext") bytes)"
}
# refresh_records OLD NEW: OLD's records (blank-line separated: name, "# Func Hash:", hash,
# counters), each replaced by NEW's record of that name when the hashes differ, then NEW's
# records of functions OLD lacks that counted anything.
refresh_records() {
  awk 'BEGIN { RS = ""; ORS = "\n\n" }
    FNR == NR {
      rec[$1] = $0; hash[$1] = $5; nonzero[$1] = ($0 ~ /Values:\n([0-9]+\n)*[1-9]/); next }
    { seen[$1] = 1
      if (($1 in hash) && hash[$1] != $5) { print rec[$1]; changed++ } else print }
    END { for (f in rec) if (!(f in seen) && nonzero[f]) { print rec[f]; added++ }
      printf "pgo-train: %d records re-recorded, %d added\n", changed, added \
        > "/dev/stderr" }' "$2" "$1"
}
refresh=0
case ${1:-all} in
  codecs) run codecs lz4hc zstd ;;
  inflate) run inflate zlib --sparse ;;
  refresh-codecs) refresh=1; run codecs lz4hc zstd ;;
  all) run codecs lz4hc zstd; run inflate zlib --sparse ;;
  *) echo "usage: scripts/pgo-train.sh [codecs|refresh-codecs|inflate|all]" >&2; exit 2 ;;
esac
