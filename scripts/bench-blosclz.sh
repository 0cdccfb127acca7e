#!/usr/bin/env bash
# BloscLZ compressor, ours against c-blosc2's, call by call in one process
# (bench/blosclz-pair). Takes the upstream source from C_BLOSC2_SRC (a c-blosc2 checkout, or a
# git directory whose HEAD is used), or else downloads the v3.3.5 tarball from GitHub, into
# target/ (git-ignored, never committed); compiles its blosc/blosclz.c with gcc -O3 and links
# it into the harness, which checks that both outputs are byte-identical.
# Usage: [C_BLOSC2_SRC=dir] scripts/bench-blosclz.sh [block_bytes [repetitions [data [clevels]]]]   (~2 minutes;
# data is one kind by name, e.g. ramp-i64, clevels a list such as 1,5)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tag=v3.3.5
work="$top/target/blosclz-ref"
src="$work/c-blosc2-${tag#v}"
if [ ! -f "$work/librefblosclz.a" ]; then
  mkdir -p "$src"
  if [ -n "${C_BLOSC2_SRC:-}" ] && [ -d "$C_BLOSC2_SRC/blosc" ]; then
    cp -r "$C_BLOSC2_SRC/blosc" "$C_BLOSC2_SRC/include" "$src/"
  elif [ -n "${C_BLOSC2_SRC:-}" ]; then
    git --git-dir="$C_BLOSC2_SRC" archive HEAD blosc include | tar -x -C "$src"
  else
    curl -fsSL "https://github.com/Blosc/c-blosc2/archive/refs/tags/$tag.tar.gz" | tar -xz -C "$work"
  fi
  for f in blosclz fastcopy; do
    gcc -O3 -DNDEBUG -fPIC -I"$src/include" -I"$src/blosc" -c "$src/blosc/$f.c" -o "$work/$f.o"
  done
  ar rcs "$work/librefblosclz.a" "$work/blosclz.o" "$work/fastcopy.o"
fi
cd "$top/bench/blosclz-pair"
REF_BLOSCLZ_DIR="$work" CARGO_TARGET_DIR="$top/target/blosclz-pair" cargo build --release --quiet
exec "$top/target/blosclz-pair/release/blosclz-pair" "$@"
