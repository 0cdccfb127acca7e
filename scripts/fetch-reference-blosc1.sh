#!/usr/bin/env bash
# Fetch Debian 12's c-blosc 1.21.3 (packages libblosc1 and libblosc-dev) into the
# git-ignored reference/blosc1/: the oracle of the libblosc.so.1 face's differential tests.
# The library links the system lz4, snappy, zlib and zstd, as Debian builds it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest="$top/reference/blosc1"
version=1.21.3+ds-1
lib="$dest/usr/lib/x86_64-linux-gnu/libblosc.so.1"
if [ -e "$lib" ] && [ -f "$dest/usr/include/blosc.h" ] && [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "libblosc1=$version" "libblosc-dev=$version" >/dev/null)
rm -rf "$dest"
mkdir -p "$dest"
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$dest"; done
echo "$version" > "$dest/VERSION"
test -e "$lib"
echo "reference c-blosc $version unpacked in $dest"
