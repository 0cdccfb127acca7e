/*
 * blosc-export.h -- symbol visibility macros of libblosc.so.1 (the c-blosc 1.x API).
 *
 * Part of libblosc2 in Rust: the c-blosc 1.21 face built on the same core. This header is
 * hand-written (blosc1/c/blosc-export.h) and copied into blosc1/include/ by tests/headers.rs.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_EXPORT_H
#define BLOSC_EXPORT_H

/*
 * BLOSC_EXPORT marks the public functions. It expands to something only when
 * BLOSC_SHARED_LIBRARY is defined (a C build of the shared library); users see an empty macro.
 * BLOSC_NO_EXPORT marks internal symbols; BLOSC_TESTING makes it behave like BLOSC_EXPORT.
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

#if defined(__GNUC__) || defined(__clang__)
#  define BLOSC_NO_EXPORT __attribute__((visibility("hidden")))
#else
#  define BLOSC_NO_EXPORT
#endif

#if defined(BLOSC_TESTING)
#  undef BLOSC_NO_EXPORT
#  define BLOSC_NO_EXPORT BLOSC_EXPORT
#endif

#endif /* BLOSC_EXPORT_H */
