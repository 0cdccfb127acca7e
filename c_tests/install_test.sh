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
         share/cmake/Blosc2/Blosc2Config.cmake share/cmake/Blosc2/Blosc2ConfigVersion.cmake; do
  [ -e "$prefix/$f" ] || { echo "install: missing $f"; exit 1; }
done
# The names cargo-c gives (README, "cargo-c"): the file libblosc2.so.9.3.5, both links to it.
for l in libblosc2.so libblosc2.so.9; do
  [ "$(readlink "$prefix/lib/$l")" = "libblosc2.so.9.3.5" ] || { echo "install: bad symlink $l"; exit 1; }
done
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
# A multiarch layout (LIBDIR=PREFIX/lib/<triplet>, as Debian installs it): CMake must still
# find the headers in PREFIX/include.
ma="$tmp/ma"
make -C "$top" -s install PREFIX="$ma" LIBDIR="$ma/lib/x86_64-linux-gnu" >/dev/null
cmake -S "$top/c_tests/consumer" -B "$tmp/build-ma" -DCMAKE_PREFIX_PATH="$ma" \
  -DCMAKE_LIBRARY_ARCHITECTURE=x86_64-linux-gnu >/dev/null
cmake --build "$tmp/build-ma" >/dev/null
LD_LIBRARY_PATH="$ma/lib/x86_64-linux-gnu" "$tmp/build-ma/consumer_shared"
# The c-blosc2 2.x face beside the 3.x library: runtime files only (programs built against
# 2.x headers load it by SONAME; libblosc2.so, the headers and pkg-config stay 3.3's).
for f in lib/libblosc2.so.7 lib/libblosc2.so.2.23.1; do
  [ -e "$prefix/$f" ] || { echo "install: missing $f"; exit 1; }
done
[ "$(readlink "$prefix/lib/libblosc2.so")" = libblosc2.so.9.3.5 ] || { echo "install: libblosc2.so must point at the 3.x library"; exit 1; }
# The c-blosc 1.x face: files, links and a pkg-config consumer.
for f in lib/libblosc.so.1 lib/libblosc.so include/blosc.h include/blosc-export.h lib/pkgconfig/blosc.pc; do
  [ -e "$prefix/$f" ] || { echo "install: missing $f"; exit 1; }
done
cat > "$tmp/b1.c" <<'C'
#include <blosc.h>
#include <string.h>
int main(void) {
  static double src[100000], back[100000];
  static char dest[sizeof src + BLOSC_MAX_OVERHEAD];
  for (int i = 0; i < 100000; i++) src[i] = i / 7.0;
  int c = blosc_compress(5, BLOSC_BITSHUFFLE, sizeof(double), sizeof src, src, dest, sizeof dest);
  int d = blosc_decompress(dest, back, sizeof back);
  return !(c > 0 && d == (int)sizeof src && memcmp(src, back, sizeof src) == 0);
}
C
gcc -o "$tmp/b1" "$tmp/b1.c" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs blosc)
LD_LIBRARY_PATH="$prefix/lib" "$tmp/b1"
# ... and with CMake: find_package(Blosc2) gives Blosc2::blosc1 when the face is installed.
mkdir -p "$tmp/b1cmake"
cat > "$tmp/b1cmake/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(b1 C)
find_package(Blosc2 REQUIRED)
add_executable(b1 $tmp/b1.c)
target_link_libraries(b1 Blosc2::blosc1)
CMAKE
cmake -S "$tmp/b1cmake" -B "$tmp/b1cmake/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/b1cmake/build" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$tmp/b1cmake/build/b1"
[ "$(ldd "$tmp/b1cmake/build/b1" | grep -c 'libblosc.so.1 ')" = 1 ] || { echo "install: the CMake 1.x consumer does not link libblosc.so.1"; exit 1; }
echo "install: ok"
