# Build, install and test libblosc2 (Rust drop-in for c-blosc2 3.3).
#   make                 release build: target/release/libblosc2.so.9 and libblosc2.a, and
#                        the c-blosc 1.x face target/release/libblosc.so.1 (blosc1/)
#   make install         install into $(PREFIX) (default /usr/local; DESTDIR honoured)
#   make test            the whole test suite (Rust, ABI, exports, C programs, install)
#   make deb             Debian packages from a clean checkout into target/deb/

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
VERSION := 3.3.5
SONAME := libblosc2.so.9
# The installed file's name, libblosc2.so.$(LIBFILE_VERSION): the SONAME's 9, then 3.3.5's
# minor and patch. cargo-c names the file from one version it also takes the SONAME from
# (Cargo.toml, [package.metadata.capi.library]); both installs give the same tree
# (scripts/test-cargo-c.sh), and scripts/check-packaging.sh checks the two values agree.
LIBFILE_VERSION := 9.3.5
CARGO ?= cargo
REL := target/release
# The c-blosc 1.x face (blosc1/): libblosc.so.1, exporting exactly c-blosc 1.21.3's API.
BLOSC1_VERSION := 1.21.3
BLOSC1_SONAME := libblosc.so.1
CC ?= cc
# Its own target directory: the core built with and without snappy-compress would otherwise
# overwrite each other's artifacts and rebuild on every alternate invocation.
BLOSC1_TARGET := target/blosc1
# The c-blosc2 2.x face (feature abi2): libblosc2.so.7, exporting exactly c-blosc2 2.23.1's API,
# for programs built against 2.x headers (PyTables and imagecodecs wheels bundle 2.23).
ABI2_VERSION := 2.23.1
ABI2_SONAME := libblosc2.so.7
ABI2_TARGET := target/abi2
# Hot functions placed together (link-order.ld, scripts/gen-link-order.sh), as build.rs does
# for libblosc2.so.9; BLOSC2_LINK_ORDER=0 turns it off.
LINK_ORDER := $(shell [ "$(BLOSC2_LINK_ORDER)" != 0 ] && [ "$$(uname -m)" = x86_64 ] && \
  [ -f link-order.ld ] && echo "-Wl,-T,link-order.ld")

.PHONY: all build build-blosc1 build-abi2 install uninstall test clean headers deb

all: build

build: build-blosc1 build-abi2
	$(CARGO) build --release --lib
	# Copied, then renamed: a program running on the old file keeps its inode.
	cp -f $(REL)/libblosc2.so $(REL)/$(SONAME).tmp && mv -f $(REL)/$(SONAME).tmp $(REL)/$(SONAME)

# Built by its own cargo invocation (and target directory): it turns on the core's
# snappy-compress feature, which libblosc2 must not get, and builds the core without its C
# API (feature c-api). The Rust static library is linked into the shared one with a version
# script, so that exactly the 25 c-blosc 1.x functions are exported (cargo-c's cdylib of the
# face exports the same 25: scripts/test-cargo-c.sh).
build-blosc1:
	$(CARGO) build --release -p blosc1 --target-dir $(BLOSC1_TARGET)
	mkdir -p $(REL)
	$(CC) -shared -o $(REL)/libblosc.so.$(BLOSC1_VERSION) -Wl,-soname,$(BLOSC1_SONAME) \
	  -Wl,--version-script=blosc1/blosc.map -Wl,--gc-sections -Wl,--as-needed $(LINK_ORDER) $(LDFLAGS) \
	  $$(sed -n 's/^ *\(blosc_[a-z_]*\);/-Wl,--undefined=\1/p' blosc1/blosc.map) \
	  $(BLOSC1_TARGET)/release/libblosc.a -lsnappy -lzstd -llz4 -lz -lgcc_s -lpthread -lm -ldl -lc
	ln -sf libblosc.so.$(BLOSC1_VERSION) $(REL)/$(BLOSC1_SONAME)

# Same link recipe as the 1.x face: the static core built with the abi2 feature, exports
# limited by abi2/libblosc2.map.
build-abi2:
	$(CARGO) build --release --lib --features abi2 --target-dir $(ABI2_TARGET)
	mkdir -p $(REL)
	$(CC) -shared -o $(REL)/libblosc2.so.$(ABI2_VERSION) -Wl,-soname,$(ABI2_SONAME) \
	  -Wl,--version-script=abi2/libblosc2.map -Wl,--gc-sections -Wl,--as-needed $(LINK_ORDER) $(LDFLAGS) \
	  $$(sed -n 's/^ *\([a-z0-9_]*\);/-Wl,--undefined=\1/p' abi2/libblosc2.map) \
	  $(ABI2_TARGET)/release/libblosc2.a -lgcc_s -lpthread -lm -ldl -lc
	ln -sf libblosc2.so.$(ABI2_VERSION) $(REL)/$(ABI2_SONAME)

# The libblosc2 3.x part installs the files `cargo cinstall` installs (README, "cargo-c"):
# the dev link points at the file, as cargo-c (and Debian policy's example) make it, and the
# CMake package is arch-independent, in DATADIR/cmake (cargo-c installs data there only).
install: build
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/blosc2 $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 755 $(REL)/libblosc2.so $(DESTDIR)$(LIBDIR)/libblosc2.so.$(LIBFILE_VERSION)
	ln -sf libblosc2.so.$(LIBFILE_VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf libblosc2.so.$(LIBFILE_VERSION) $(DESTDIR)$(LIBDIR)/libblosc2.so
	install -m 644 $(REL)/libblosc2.a $(DESTDIR)$(LIBDIR)/libblosc2.a
	install -m 644 include/blosc2.h include/b2nd.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 include/blosc2/*.h $(DESTDIR)$(INCLUDEDIR)/blosc2/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    cmake/blosc2.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/blosc2.pc
	install -d $(DESTDIR)$(DATADIR)/cmake/Blosc2
	for f in Blosc2Config Blosc2ConfigVersion; do \
	  sed -e 's|@VERSION@|$(VERSION)|g' \
	      -e "s|@PREFIX_FROM_CONFIG@|$$(realpath -m --relative-to=$(DATADIR)/cmake/Blosc2 $(PREFIX))|g" \
	      -e "s|@INCLUDE_FROM_CONFIG@|$$(realpath -m --relative-to=$(DATADIR)/cmake/Blosc2 $(INCLUDEDIR))|g" \
	      cmake/$$f.cmake.in > $(DESTDIR)$(DATADIR)/cmake/Blosc2/$$f.cmake || exit 1; \
	done
	install -m 755 $(REL)/libblosc2.so.$(ABI2_VERSION) $(DESTDIR)$(LIBDIR)/libblosc2.so.$(ABI2_VERSION)
	ln -sf libblosc2.so.$(ABI2_VERSION) $(DESTDIR)$(LIBDIR)/$(ABI2_SONAME)
	install -m 755 $(REL)/libblosc.so.$(BLOSC1_VERSION) $(DESTDIR)$(LIBDIR)/libblosc.so.$(BLOSC1_VERSION)
	ln -sf libblosc.so.$(BLOSC1_VERSION) $(DESTDIR)$(LIBDIR)/$(BLOSC1_SONAME)
	ln -sf libblosc.so.$(BLOSC1_VERSION) $(DESTDIR)$(LIBDIR)/libblosc.so
	install -m 644 blosc1/include/blosc.h blosc1/include/blosc-export.h $(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(BLOSC1_VERSION)|g' \
	    blosc1/blosc.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/blosc.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libblosc2.so* $(DESTDIR)$(LIBDIR)/libblosc2.a \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/blosc2.pc $(DESTDIR)$(INCLUDEDIR)/blosc2.h $(DESTDIR)$(INCLUDEDIR)/b2nd.h
	rm -f $(DESTDIR)$(LIBDIR)/libblosc.so $(DESTDIR)$(LIBDIR)/libblosc.so.1* \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/blosc.pc $(DESTDIR)$(INCLUDEDIR)/blosc.h $(DESTDIR)$(INCLUDEDIR)/blosc-export.h
	rm -rf $(DESTDIR)$(DATADIR)/cmake/Blosc2 $(DESTDIR)$(INCLUDEDIR)/blosc2

headers:
	scripts/gen-headers.sh

# Debian packages into target/deb/ (scripts/make-deb.sh; needs debhelper and lintian).
deb:
	scripts/make-deb.sh

test:
	scripts/test.sh

clean:
	$(CARGO) clean
