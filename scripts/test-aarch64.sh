#!/usr/bin/env bash
# Cross-builds the crate for aarch64 and runs its unit tests under qemu-user, so that the
# NEON kernels (src/filters/*_neon.rs) are compiled and checked against their scalar twins
# on every run. Tests that load the reference library are skipped: the reference here is an
# x86-64 build.
#
# Needs: rustup target aarch64-unknown-linux-gnu, gcc-/g++-aarch64-linux-gnu (zfp-sys runs
# cmake, which wants both), qemu-user, and
# libsnappy-dev:arm64 (Debian multiarch; the snappy tests link the real libsnappy). .ci/run
# installs them. Without them this step says so and passes, unless BLOSC2_REQUIRE_AARCH64=1
# (set by .ci/run), where a missing tool is a failure.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
target=aarch64-unknown-linux-gnu
missing=()
rustup target list --installed 2>/dev/null | grep -qx "$target" || missing+=("rustup target $target")
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
command -v aarch64-linux-gnu-g++ >/dev/null || missing+=(g++-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
[ -e /usr/lib/aarch64-linux-gnu/libsnappy.so ] || missing+=(libsnappy-dev:arm64)
[ -e /lib/ld-linux-aarch64.so.1 ] || missing+=(libc6:arm64)
if [ ${#missing[@]} -gt 0 ]; then
  echo "aarch64 tests not run: missing ${missing[*]}"
  [ "${BLOSC2_REQUIRE_AARCH64:-0}" = 1 ] && exit 1
  exit 0
fi
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
# The guest's dynamic loader and libc must come from the same package (libc6:arm64 in the
# multiarch root): the cross toolchain's older libc next to the multiarch one hangs in
# pthread_create.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /"
export PKG_CONFIG_ALLOW_CROSS=1 PKG_CONFIG_PATH=/usr/lib/aarch64-linux-gnu/pkgconfig
cargo test --release --target "$target" --lib -- --skip schunk::tests::reference_
