#!/usr/bin/env bash
# Fast checks of the Debian packaging files, run by the test suite (the full package build
# is `make deb`, a few minutes):
#   - debian/libblosc2-9.symbols lists exactly the exported functions (the ABI list and the
#     built library), debian/libblosc1-rs.symbols exactly blosc1/blosc.map and the built
#     libblosc.so.1, debian/libblosc2-7.symbols exactly abi2/libblosc2.map and libblosc2.so.7;
#   - package names follow the SONAMEs; the 1.x runtime provides/replaces libblosc1;
#   - every file `make install` installs belongs to exactly one package's .install list,
#     and every list entry matches something;
#   - debian/copyright is what scripts/deb-copyright.py generates from Cargo.lock;
#   - the installed library's file name is the one cargo-c gives it (the Makefile's
#     LIBFILE_VERSION is Cargo.toml's [package.metadata.capi.library] version, whose major
#     is the SONAME's), so `make install` and `cargo cinstall` cannot drift apart on it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rel=target/release
test -e $rel/libblosc2.so.9 && test -e $rel/libblosc2.so.7 && test -e $rel/libblosc.so.1 || { echo "build first (make build)"; exit 1; }

syms() { sed -n 's/^ \([A-Za-z0-9_]*\)@Base .*/\1/p' "$1" | sort; }
exports() { nm -D --defined-only "$1" | awk '$2=="T"{print $3}' | sort; }
diff <(syms debian/libblosc2-9.symbols) <(sort ../shared/abi/exported-symbols.txt) || bad "libblosc2-9.symbols vs the ABI list"
diff <(syms debian/libblosc2-9.symbols) <(exports $rel/libblosc2.so.9) || bad "libblosc2-9.symbols vs libblosc2.so.9"
diff <(syms debian/libblosc1-rs.symbols) <(sed -n 's/^ *\(blosc_[a-z_]*\);/\1/p' blosc1/blosc.map | sort) || bad "libblosc1-rs.symbols vs blosc1/blosc.map"
diff <(syms debian/libblosc1-rs.symbols) <(exports $rel/libblosc.so.1) || bad "libblosc1-rs.symbols vs libblosc.so.1"
diff <(syms debian/libblosc2-7.symbols) <(sed -n 's/^ *\([a-z0-9_]*\);/\1/p' abi2/libblosc2.map | sort) || bad "libblosc2-7.symbols vs abi2/libblosc2.map"
diff <(syms debian/libblosc2-7.symbols) <(exports $rel/libblosc2.so.7) || bad "libblosc2-7.symbols vs libblosc2.so.7"
head -1 debian/libblosc2-7.symbols | grep -qx 'libblosc2.so.7 libblosc2-7 #MINVER#' || bad "libblosc2-7.symbols header"
head -1 debian/libblosc2-9.symbols | grep -qx 'libblosc2.so.9 libblosc2-9 #MINVER#' || bad "libblosc2-9.symbols header"
head -1 debian/libblosc1-rs.symbols | grep -qx 'libblosc.so.1 libblosc1-rs #MINVER#' || bad "libblosc1-rs.symbols header"

soname() { objdump -p "$1" | sed -n 's/^ *SONAME *//p'; }
pkgname() { echo "$1" | sed -r 's/([0-9])\.so\./\1-/; s/\.so(\.|$)//; y/_/-/'; }
[ "$(pkgname "$(soname $rel/libblosc2.so.9)")" = libblosc2-9 ] || bad "SONAME of libblosc2 vs package libblosc2-9"
grep -qx 'Package: libblosc2-9' debian/control || bad "no libblosc2-9 package"
[ "$(pkgname "$(soname $rel/libblosc2.so.7)")" = libblosc2-7 ] || bad "SONAME of the 2.x face vs package libblosc2-7"
grep -qx 'Package: libblosc2-7' debian/control || bad "no libblosc2-7 package"
[ "$(pkgname "$(soname $rel/libblosc.so.1)")" = libblosc1 ] || bad "SONAME of libblosc.so.1"
ctl() { awk -v p="$1" -v f="$2" '/^Package: /{cur=$2} cur==p && index($0, f": ")==1 {sub(f": ", ""); print}' debian/control; }
[ "$(ctl libblosc1-rs Provides)" = "libblosc1 (= 1.21.3)" ] || bad "libblosc1-rs Provides"
[ "$(ctl libblosc1-rs Conflicts)" = "libblosc1" ] && [ "$(ctl libblosc1-rs Replaces)" = "libblosc1" ] || bad "libblosc1-rs Conflicts/Replaces"
[ "$(ctl libblosc2-dev Depends)" = 'libblosc2-9 (= ${binary:Version}), ${misc:Depends}' ] || bad "libblosc2-dev Depends"
grep -q '^Multi-Arch: same' debian/control || bad "Multi-Arch"

# The install lists against what `make install` installs.
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
make -s install DESTDIR="$dest" PREFIX=/usr LIBDIR=/usr/lib/$ma INCLUDEDIR=/usr/include >/dev/null
(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) > "$dest.files"
: > "$dest.claimed"
for f in debian/*.install; do
  while read -r pat; do
    [ -z "$pat" ] && continue
    pat=${pat//\$\{DEB_HOST_MULTIARCH\}/$ma}
    hits=$(cd "$dest" && for p in $pat; do if [ -e "$p" ] || [ -L "$p" ]; then find "$p" \( -type f -o -type l \); fi; done | sed 's|^\./||' | sort -u)
    [ -n "$hits" ] || bad "$f: '$pat' matches nothing"
    echo "$hits" >> "$dest.claimed"
  done < "$f"
done
sort "$dest.claimed" | grep -v '^$' > "$dest.claimed.s"
diff "$dest.files" <(sort -u "$dest.claimed.s") || bad "installed files vs debian/*.install (unclaimed: >/<)"
[ "$(uniq -d "$dest.claimed.s" | wc -l)" -eq 0 ] || bad "files in two packages: $(uniq -d "$dest.claimed.s")"
rm -f "$dest.files" "$dest.claimed" "$dest.claimed.s"

# One file name for make and cargo-c (scripts/test-cargo-c.sh compares whole trees, when
# cargo-c is installed).
mk_ver=$(sed -n 's/^LIBFILE_VERSION := //p' Makefile)
capi_ver=$(awk '/^\[/{sec=$0} sec=="[package.metadata.capi.library]" && /^version *=/{gsub(/[" ]/,""); sub("version=",""); print}' Cargo.toml)
capi_suffix=$(awk '/^\[/{sec=$0} sec=="[package.metadata.capi.library]" && /^version_suffix_components *=/{print $3}' Cargo.toml)
[ -n "$mk_ver" ] && [ "$mk_ver" = "$capi_ver" ] || bad "Makefile LIBFILE_VERSION ($mk_ver) vs Cargo.toml capi library version ($capi_ver)"
[ "$capi_suffix" = 1 ] && [ "libblosc2.so.${capi_ver%%.*}" = "$(soname $rel/libblosc2.so.9)" ] \
  || bad "cargo-c's SONAME (libblosc2.so.${capi_ver%%.*}, suffix components $capi_suffix) vs the library's"

diff <(python3 scripts/deb-copyright.py) debian/copyright >/dev/null || bad "debian/copyright is stale: run scripts/deb-copyright.py debian/copyright"
[ $fail -eq 0 ] && echo "packaging files: OK"
exit $fail
