#!/usr/bin/env bash
# cargo-c against `make install` (issue 19): `cargo cinstall` must install the libblosc2 3.x
# part of what `make install` installs.
#
# The expected file list is written nowhere here: it is the tree `make install` installs,
# cut to the files of the packages libblosc2-9 and libblosc2-dev (their debian/*.install
# lists; scripts/check-packaging.sh checks that each installed file is in exactly one
# package). The 1.x face (libblosc.so.1) and the 2.x face (libblosc2.so.7) are Makefile-only:
# cargo-c builds one library per package, with the package's features.
#
# Both trees use PREFIX=/usr, LIBDIR=/usr/lib/<multiarch>, INCLUDEDIR=/usr/include, as
# debian/rules does. cargo cinstall alone lacks the SONAME link libblosc2.so.9, points
# libblosc2.so straight at libblosc2.so.3.3.5 and installs no CMake package (cargo-c cannot);
# `make install-extra` completes its tree, and that completed tree is what must equal the
# reference. The differences of cargo cinstall alone are printed too, for information.
#
# Compared, path by path: the file list, file types and modes, symlink targets; for the
# shared library its SONAME, NEEDED entries and dynamic symbol table (name and type); for the
# static library the global C symbols it defines; headers and CMake files byte for byte;
# blosc2.pc as pkg-config reads it (Name, Description, Version, Requires, Requires.private,
# Libs, Libs.private as a set, Cflags and the prefix/libdir/includedir variables). The raw
# .pc diff is printed: cargo-c writes its own layout (exec_prefix, libdir as ${prefix}/...,
# no URL line, Libs.private in rustc's order).
#
# Exit status 0 when everything compared is equal, 1 on any difference. Prints SKIP and
# exits 0 when cargo-c (`cargo cinstall`) is not installed. Builds: `make install` needs
# `make build` (all three faces); cargo-c builds the library once more in
# target/<triple>/release (release profile, ~5 min on 2 cores when not built yet).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if ! cargo cinstall --version >/dev/null 2>&1; then
  echo "SKIP: cargo-c is not installed (cargo install --locked cargo-c); nothing compared"
  exit 0
fi
echo "cargo-c: $(cargo cinstall --version 2>&1 | head -1)"

ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
libdir=/usr/lib/$ma
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make_vars=(PREFIX=/usr "LIBDIR=$libdir" INCLUDEDIR=/usr/include)

fail=0
bad() { echo "DIFF: $*"; fail=1; }

echo "== make install ${make_vars[*]} DESTDIR=<tmp>/make"
make -s install DESTDIR="$tmp/make" "${make_vars[@]}" >"$tmp/make.log" 2>&1 \
  || { cat "$tmp/make.log"; echo "make install failed"; exit 1; }
echo "== cargo cinstall --release --prefix=/usr --libdir=$libdir --includedir=/usr/include --destdir=<tmp>/cargo-c"
cargo cinstall --release --prefix=/usr --libdir="$libdir" --includedir=/usr/include \
  --destdir="$tmp/cargo-c" >"$tmp/cinstall.log" 2>&1 \
  || { cat "$tmp/cinstall.log"; echo "cargo cinstall failed"; exit 1; }
cp -a "$tmp/cargo-c" "$tmp/cargo-c-alone"
echo "== make install-extra ${make_vars[*]} DESTDIR=<tmp>/cargo-c"
make -s install-extra DESTDIR="$tmp/cargo-c" "${make_vars[@]}"

# Files (and symlinks) under a tree, relative paths.
files() { (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort); }
# The files of tree $1 that the given debian/*.install lists claim.
claimed() {
  local root=$1 list pat p
  shift
  for list in "$@"; do
    while read -r pat; do
      [ -z "$pat" ] && continue
      pat=${pat//\$\{DEB_HOST_MULTIARCH\}/$ma}
      (cd "$root" && for p in $pat; do
         if [ -e "$p" ] || [ -L "$p" ]; then find "$p" \( -type f -o -type l \); fi
       done)
    done <"$list"
  done | sed 's|^\./||' | sort -u
}
# Symlinks as "path -> target", regular files as "path (mode)".
describe() {
  local root=$1 p
  while read -r p; do
    if [ -L "$root/$p" ]; then echo "$p -> $(readlink "$root/$p")"
    else echo "$p ($(stat -c %a "$root/$p"))"; fi
  done
}

claimed "$tmp/make" debian/libblosc2-9.install debian/libblosc2-dev.install >"$tmp/expected"
grep -qx "usr/lib/$ma/libblosc2.so.9" "$tmp/expected" \
  || { echo "no libblosc2.so.9 among the libblosc2-9/libblosc2-dev files of make install"; exit 1; }
files "$tmp/cargo-c" >"$tmp/got"
files "$tmp/cargo-c-alone" >"$tmp/alone"
echo "== libblosc2 3.x files of make install: $(wc -l <"$tmp/expected")"
if ! diff -u --label "make install (libblosc2-9 + libblosc2-dev files)" \
     --label "cargo cinstall + make install-extra" "$tmp/expected" "$tmp/got"; then
  bad "file lists"
fi

soname() { readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort; }
dynsyms() { nm -D --defined-only "$1" | awk '{print $2, $3}' | sort; }
# Global and weak symbols defined in a static library, C names only: Rust's mangled names
# carry crate hashes, which change with the feature set (cargo-c turns on `capi`). readelf,
# not nm: nm hands objects with embedded LLVM bitcode (`make build`'s, lto = "fat") to the
# LLVMgold plugin when /usr/lib/bfd-plugins has it, and then lists nothing for them.
staticsyms() {
  readelf -sW "$1" 2>/dev/null \
    | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && NF >= 8 {print $5, $4, $8}' \
    | grep -Ev ' (_ZN|_R)' | sort -u
}
pcquery() {
  local dir=$1
  local pc=(env PKG_CONFIG_LIBDIR="$dir" PKG_CONFIG_PATH= PKG_CONFIG_SYSROOT_DIR=
            PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 pkg-config)
  local f
  # As written (pkg-config prints nothing for a Requires it cannot resolve here).
  for f in Name Description Requires Requires.private; do
    echo "$f: $(sed -n "s/^$f: *//p" "$dir/blosc2.pc")"
  done
  echo "Version: $("${pc[@]}" --modversion blosc2)"
  echo "Libs: $("${pc[@]}" --libs blosc2)"
  # The order of Libs.private is rustc's (native-static-libs) in cargo-c's file and the
  # template's in make's; both are shared system libraries, so the set is compared and the
  # order printed apart (below).
  echo "Libs --static, sorted: $("${pc[@]}" --static --libs blosc2 | tr ' ' '\n' | grep -v '^$' | sort | tr '\n' ' ')"
  echo "Cflags: $("${pc[@]}" --cflags blosc2)"
  for f in prefix libdir includedir; do
    echo "$f=$("${pc[@]}" --variable=$f blosc2)"
  done
}

while read -r p; do
  a=$tmp/make/$p b=$tmp/cargo-c/$p
  if [ -L "$a" ] || [ -L "$b" ]; then
    if [ -L "$a" ] && [ -L "$b" ] && [ "$(readlink "$a")" = "$(readlink "$b")" ]; then
      echo "same  $p -> $(readlink "$a")"
    else
      bad "$p: $(describe "$tmp/make" <<<"$p") vs $(describe "$tmp/cargo-c" <<<"$p")"
    fi
    continue
  fi
  [ "$(stat -c %a "$a")" = "$(stat -c %a "$b")" ] \
    || bad "$p: mode $(stat -c %a "$a") vs $(stat -c %a "$b")"
  case "$p" in
    *.so.*)
      [ "$(soname "$a")" = "$(soname "$b")" ] \
        || bad "$p: SONAME $(soname "$a") vs $(soname "$b")"
      diff <(needed "$a") <(needed "$b") >"$tmp/d" || { cat "$tmp/d"; bad "$p: NEEDED"; }
      diff <(dynsyms "$a") <(dynsyms "$b") >"$tmp/d" || { head -40 "$tmp/d"; bad "$p: exported symbols"; }
      if cmp -s "$a" "$b"; then bytes="same bytes"; else bytes="other bytes (another build)"; fi
      echo "same  $p: SONAME $(soname "$b"), NEEDED $(needed "$b" | tr '\n' ' ')$(dynsyms "$b" | wc -l) dynamic symbols; $bytes"
      ;;
    *.a)
      if diff <(staticsyms "$a") <(staticsyms "$b") >"$tmp/d"; then
        echo "same  $p: $(staticsyms "$b" | wc -l) defined global/weak C symbols"
      else
        head -40 "$tmp/d"; bad "$p: defined C symbols"
      fi
      ;;
    *.pc)
      pcquery "$(dirname "$a")" >"$tmp/pc.make"
      pcquery "$(dirname "$b")" >"$tmp/pc.cargo-c"
      if diff -u --label "make install: pkg-config reads" --label "cargo cinstall: pkg-config reads" \
           "$tmp/pc.make" "$tmp/pc.cargo-c"; then
        echo "same  $p as pkg-config reads it:"
        sed 's/^/        /' "$tmp/pc.make"
      else
        bad "$p"
      fi
      for f in "$a" "$b"; do
        echo "      Libs.private as written: $(sed -n 's/^Libs.private: *//p' "$f")"
      done
      echo "      raw text (informational):"
      diff -u --label "make install $p" --label "cargo cinstall $p" "$a" "$b" | sed 's/^/        /' || true
      ;;
    *)
      if cmp "$a" "$b"; then echo "same  $p (byte for byte)"; else bad "$p: contents"; fi
      ;;
  esac
done < <(comm -12 "$tmp/expected" "$tmp/got")

echo "== cargo cinstall alone, before make install-extra (informational):"
diff <(describe "$tmp/make" <"$tmp/expected") <(describe "$tmp/cargo-c-alone" <"$tmp/alone") \
  | sed -n 's/^< /        only make install: /p; s/^> /        only cargo cinstall: /p' || true

if [ "$fail" = 0 ]; then
  echo "cargo-c: the same libblosc2 3.x install as make install"
else
  echo "cargo-c: differs from make install (see DIFF lines)"
fi
exit "$fail"
