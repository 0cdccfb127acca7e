# Build, install and test libblosc2 (Rust drop-in for c-blosc2 3.3).
#   make                 release build: target/release/libblosc2.so.9 and libblosc2.a
#   make install         install into $(PREFIX) (default /usr/local; DESTDIR honoured)
#   make test            the whole test suite (Rust, ABI, exports, C programs, install)

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
VERSION := 3.3.5
SONAME := libblosc2.so.9
CARGO ?= cargo
REL := target/release

.PHONY: all build install uninstall test clean headers

all: build

build:
	$(CARGO) build --release --lib
	cp -f $(REL)/libblosc2.so $(REL)/$(SONAME)

install: build
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/blosc2 \
	  $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/cmake/Blosc2
	install -m 755 $(REL)/libblosc2.so $(DESTDIR)$(LIBDIR)/libblosc2.so.$(VERSION)
	ln -sf libblosc2.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libblosc2.so
	install -m 644 $(REL)/libblosc2.a $(DESTDIR)$(LIBDIR)/libblosc2.a
	install -m 644 include/blosc2.h include/b2nd.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 include/blosc2/*.h $(DESTDIR)$(INCLUDEDIR)/blosc2/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    cmake/blosc2.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/blosc2.pc
	sed -e 's|@VERSION@|$(VERSION)|g' cmake/Blosc2Config.cmake.in \
	    > $(DESTDIR)$(LIBDIR)/cmake/Blosc2/Blosc2Config.cmake
	sed -e 's|@VERSION@|$(VERSION)|g' cmake/Blosc2ConfigVersion.cmake.in \
	    > $(DESTDIR)$(LIBDIR)/cmake/Blosc2/Blosc2ConfigVersion.cmake

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libblosc2.so* $(DESTDIR)$(LIBDIR)/libblosc2.a \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/blosc2.pc $(DESTDIR)$(INCLUDEDIR)/blosc2.h $(DESTDIR)$(INCLUDEDIR)/b2nd.h
	rm -rf $(DESTDIR)$(LIBDIR)/cmake/Blosc2 $(DESTDIR)$(INCLUDEDIR)/blosc2

headers:
	scripts/gen-headers.sh

test:
	scripts/test.sh

clean:
	$(CARGO) clean
