#!/usr/bin/env bash
# Fetch the reference c-blosc2 (3.3.5, shipped in the PyPI wheel blosc2==4.14.1) into the
# git-ignored folder reference/. Tests use its libblosc2.so.9 and headers as the oracle.
# Nothing from the wheel is ever committed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest="$top/reference"
version=4.14.1
if [ -f "$dest/blosc2/lib/libblosc2.so.9" ] && [ -f "$dest/blosc2/include/blosc2.h" ] \
   && [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
  --platform manylinux_2_28_x86_64 -d "$tmp" "blosc2==$version"
rm -rf "$dest"
mkdir -p "$dest"
python3 - "$tmp" "$dest" <<'PY'
import glob, sys, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
whl = glob.glob(tmp + "/blosc2-*.whl")[0]
with zipfile.ZipFile(whl) as z:
    for name in z.namelist():
        if name.startswith(("blosc2/lib/", "blosc2/include/")):
            z.extract(name, dest)
PY
echo "$version" > "$dest/VERSION"
test -f "$dest/blosc2/lib/libblosc2.so.9"
echo "reference c-blosc2 unpacked in $dest/blosc2"
