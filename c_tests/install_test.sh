#!/usr/bin/env bash
# Install into a temporary prefix and build a consumer with pkg-config and with CMake's
# find_package(Blosc2) (shared and static targets); run each.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
make -C "$top" -s install PREFIX="$prefix" >/dev/null
for f in lib/libblosc2.so.9 lib/libblosc2.so lib/libblosc2.a include/blosc2.h include/b2nd.h \
         include/blosc2/blosc2-export.h lib/pkgconfig/blosc2.pc \
         lib/cmake/Blosc2/Blosc2Config.cmake lib/cmake/Blosc2/Blosc2ConfigVersion.cmake; do
  [ -e "$prefix/$f" ] || { echo "install: missing $f"; exit 1; }
done
[ "$(readlink "$prefix/lib/libblosc2.so")" = "libblosc2.so.9" ] || { echo "install: bad symlink"; exit 1; }
# pkg-config consumer
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs blosc2)
gcc -o "$tmp/consumer_pc" "$top/c_tests/consumer/main.c" $flags
LD_LIBRARY_PATH="$prefix/lib" "$tmp/consumer_pc"
sflags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --static --cflags --libs blosc2)
gcc -o "$tmp/consumer_pc_static" "$top/c_tests/consumer/main.c" -I"$prefix/include" "$prefix/lib/libblosc2.a" \
  $(echo "$sflags" | tr ' ' '\n' | grep -v -- '-lblosc2' | tr '\n' ' ')
"$tmp/consumer_pc_static"
# CMake consumer
cmake -S "$top/c_tests/consumer" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/build" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$tmp/build/consumer_shared"
"$tmp/build/consumer_static"
echo "install: ok"
