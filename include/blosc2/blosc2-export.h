/*
 * blosc2/blosc2-export.h -- symbol visibility macros of libblosc2.
 *
 * Part of libblosc2 in Rust, a C-ABI compatible implementation of the c-blosc2 3.3 API.
 * This header is hand-written (src/ffi/abi/c/blosc2-export.h) and copied into include/ by
 * tests/headers.rs; edit the source, then run scripts/gen-headers.sh.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_BLOSC2_BLOSC2_EXPORT_H
#define BLOSC_BLOSC2_BLOSC2_EXPORT_H

/*
 * BLOSC_EXPORT marks the functions of the public API. It only expands to something when
 * BLOSC_SHARED_LIBRARY is defined (i.e. while building the shared library the old C way);
 * users of the library see an empty macro, which is all an ELF import needs.
 * BLOSC_NO_EXPORT marks symbols that must stay internal to the library.
 * Defining BLOSC_TESTING makes BLOSC_NO_EXPORT behave like BLOSC_EXPORT.
 */
#if !defined(BLOSC_SHARED_LIBRARY)
#  define BLOSC_EXPORT
#elif defined(_MSC_VER)
#  define BLOSC_EXPORT __declspec(dllexport)
#elif defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 4)
#  if defined(_WIN32) || defined(__CYGWIN__) || defined(__MINGW32__)
#    define BLOSC_EXPORT __attribute__((dllexport))
#  else
#    define BLOSC_EXPORT __attribute__((visibility("default")))
#  endif
#else
#  error "BLOSC_SHARED_LIBRARY: no known way to export symbols with this compiler"
#endif

#if defined(BLOSC_TESTING)
#  define BLOSC_NO_EXPORT BLOSC_EXPORT
#elif (defined(__GNUC__) || defined(__clang__)) && !defined(__MINGW32__)
#  define BLOSC_NO_EXPORT __attribute__((visibility("hidden")))
#else
#  define BLOSC_NO_EXPORT
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_EXPORT_H */
