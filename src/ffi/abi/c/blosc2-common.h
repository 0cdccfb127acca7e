/*
 * blosc2/blosc2-common.h -- portability macros shared by the libblosc2 headers.
 *
 * Part of libblosc2 in Rust, a C-ABI compatible implementation of the c-blosc2 3.3 API.
 * This header is hand-written (src/ffi/abi/c/blosc2-common.h) and copied into include/ by
 * tests/headers.rs; edit the source, then run scripts/gen-headers.sh.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_BLOSC2_BLOSC2_COMMON_H
#define BLOSC_BLOSC2_BLOSC2_COMMON_H

#include "blosc2-export.h"

#include <stdint.h>
#include <string.h>

/* BLOSC_UNUSED_VAR silences "unused variable" warnings on GCC-compatible compilers;
   BLOSC_GCC_VERSION is the compiler version as major * 100 + minor there. */
#if defined(__GNUC__)
#  define BLOSC_GCC_VERSION (__GNUC__ * 100 + __GNUC_MINOR__)
#  define BLOSC_UNUSED_VAR __attribute__((unused))
#else
#  define BLOSC_UNUSED_VAR
#endif

/* Marks a function parameter as deliberately unused. */
#define BLOSC_UNUSED_PARAM(x) ((void)(x))

/* Visual C in C mode spells `inline` as `__inline`. */
#if defined(_MSC_VER) && !defined(__cplusplus)
#  define inline __inline
#endif

/* MSVC does not announce SSE2 through __SSE2__; do it when the target guarantees it. */
#if defined(_MSC_VER) && !defined(__SSE2__) && \
    (defined(_M_X64) || (defined(_M_IX86) && _M_IX86_FP >= 2))
#  define __SSE2__
#endif

/*
 * BLOSC_STRICT_ALIGN is left defined on targets where unaligned memory accesses are not
 * known to be cheap, and undefined on x86, 64-bit ARM with unaligned-access support and
 * PowerPC. A definition made by the user beforehand is kept.
 */
#if !defined(BLOSC_STRICT_ALIGN)
#  if defined(__i386__) || defined(__386) || defined(__amd64) || \
      defined(__i486__) || defined(__i586__) || defined(__i686__) || \
      defined(_M_IX86) || defined(_M_X64) || defined(_X86_) || defined(__I86__) || \
      (defined(__ARM_FEATURE_UNALIGNED) && defined(__ARM64_ARCH_8__)) || \
      defined(_ARCH_PPC) || defined(__PPC__)
     /* unaligned accesses are fine: leave BLOSC_STRICT_ALIGN undefined */
#  else
#    define BLOSC_STRICT_ALIGN
#  endif
#endif

/* SIMD intrinsics headers, when the target has the instruction sets. */
#if defined(__SSE2__)
#  include <emmintrin.h>
#endif
#if defined(__AVX2__) || defined(__AVX512F__) || defined(__AVX512BW__)
#  include <immintrin.h>
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_COMMON_H */
