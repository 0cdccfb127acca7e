#!/usr/bin/env bash
# Fetch the c-blosc2 2.x reference (2.23.1, shipped with headers in the PyPI wheel
# blosc2==4.1.2) into the git-ignored folder reference/blosc2-2.23/. The 2.x face
# (target/release/libblosc2.so.2.23.1, SONAME libblosc2.so.7) is tested against it.
# Nothing from the wheel is ever committed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest="$top/reference/blosc2-2.23"
version=4.1.2
if [ -f "$dest/blosc2/lib/libblosc2.so.7" ] && [ -f "$dest/blosc2/include/blosc2.h" ] \
   && [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$tmp" "blosc2==$version"
rm -rf "$dest"
mkdir -p "$dest"
python3 - "$tmp" "$dest" <<'PY'
import glob, sys, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
whl = glob.glob(tmp + "/blosc2-*.whl")[0]
with zipfile.ZipFile(whl) as z:
    for name in z.namelist():
        if name.startswith(("blosc2/lib/libblosc2.so.7", "blosc2/include/")):
            z.extract(name, dest)
PY
echo "$version" > "$dest/VERSION"
grep -q '"2.23.1"' "$dest/blosc2/include/blosc2.h"
test -f "$dest/blosc2/lib/libblosc2.so.7"
echo "reference c-blosc2 2.23.1 unpacked in $dest/blosc2"
