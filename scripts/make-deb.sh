#!/usr/bin/env bash
# `make deb`: the Debian binary packages from a clean checkout of HEAD, into target/deb/:
# libblosc2-9, libblosc2-dev, libblosc1-rs, libblosc-rs-dev and their -dbgsym packages,
# then lintian on them (its report: target/deb/lintian.txt).
# Steps: `git archive HEAD` into target/deb/build/, `cargo vendor --versioned-dirs` there
# (the only step that may use the network; the package build itself is offline, as on
# Debian's builders), dpkg-buildpackage -b. Build dependencies are not checked (-d): the
# crate needs rustc >= 1.89, newer than Debian 12's, so the build uses the rustup toolchain
# on PATH; the other Build-Depends (debhelper, clang, cmake, pkg-config, libsnappy-dev,
# python3) must be installed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
upstream=${version%-*}
out="$top/target/deb"
build="$out/build"
src="$build/blosc2-rs-$upstream"
rm -rf "$build"
mkdir -p "$src"
git archive HEAD | tar -x -C "$src"
(cd "$src" && cargo vendor --locked --versioned-dirs vendor >/dev/null)
t0=$SECONDS
(cd "$src" && dpkg-buildpackage -b -us -uc -d -j2) > "$out/build.log" 2>&1 || {
  tail -40 "$out/build.log"; echo "dpkg-buildpackage failed (log: $out/build.log)"; exit 1; }
echo "dpkg-buildpackage: $((SECONDS - t0)) s"
rm -f "$out"/*.deb "$out"/*.ddeb
mv "$build"/*.deb "$out"/
mv "$build"/*.ddeb "$out"/ 2>/dev/null || true
mv "$build"/*.changes "$build"/*.buildinfo "$out"/ 2>/dev/null || true
ls -1 "$out"/*.deb
lintian --info --display-info --pedantic "$out"/*.changes > "$out/lintian.txt" 2>&1 || true
cat "$out/lintian.txt"
if grep -qE '^[EW]: ' "$out/lintian.txt"; then
  echo "lintian: errors or warnings (above)"; exit 1
fi
echo "lintian: no errors, no warnings"
