/*
 * blosc.h -- the c-blosc 1.x API (libblosc.so.1), as of c-blosc 1.21.3.
 *
 * Part of libblosc2 in Rust: this library is a drop-in for c-blosc 1.21.x built on the same
 * Rust core as libblosc2. The macros below are hand-written (blosc1/c/blosc.preamble.h);
 * the function declarations are generated from blosc1/src/lib.rs by tests/headers.rs.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_H
#define BLOSC_H

#include <limits.h>
#include <stdlib.h>
#include "blosc-export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The c-blosc release whose API and chunk format this library implements. */
#define BLOSC_VERSION_MAJOR    1
#define BLOSC_VERSION_MINOR    21
#define BLOSC_VERSION_RELEASE  3
#define BLOSC_VERSION_STRING   "1.21.3"
#define BLOSC_VERSION_REVISION "$Rev$"
#define BLOSC_VERSION_DATE     "$Date:: 2022-12-15 #$"

/* The chunk format version written (and the only one read). */
#define BLOSC_VERSION_FORMAT    2

/* Every chunk starts with a header of this size; a compressed buffer is never larger than
   its input plus this. */
#define BLOSC_MIN_HEADER_LENGTH 16
#define BLOSC_MAX_OVERHEAD BLOSC_MIN_HEADER_LENGTH

/* Largest input buffer. */
#define BLOSC_MAX_BUFFERSIZE (INT_MAX - BLOSC_MAX_OVERHEAD)

/* Largest item size; larger ones are treated as 1. */
#define BLOSC_MAX_TYPESIZE 255

/* Largest block a chunk may declare. */
#define BLOSC_MAX_BLOCKSIZE \
  ((INT_MAX - BLOSC_MAX_TYPESIZE * sizeof(int32_t)) / 3)

/* Most threads one call may use. */
#define BLOSC_MAX_THREADS 256

/* Values of the doshuffle argument. */
#define BLOSC_NOSHUFFLE   0
#define BLOSC_SHUFFLE     1
#define BLOSC_BITSHUFFLE  2

/* Flag bits reported by blosc_cbuffer_metainfo. */
#define BLOSC_DOSHUFFLE    0x1
#define BLOSC_MEMCPYED     0x2
#define BLOSC_DOBITSHUFFLE 0x4

/* Compressor codes. */
#define BLOSC_BLOSCLZ   0
#define BLOSC_LZ4       1
#define BLOSC_LZ4HC     2
#define BLOSC_SNAPPY    3
#define BLOSC_ZLIB      4
#define BLOSC_ZSTD      5

/* Compressor names. */
#define BLOSC_BLOSCLZ_COMPNAME   "blosclz"
#define BLOSC_LZ4_COMPNAME       "lz4"
#define BLOSC_LZ4HC_COMPNAME     "lz4hc"
#define BLOSC_SNAPPY_COMPNAME    "snappy"
#define BLOSC_ZLIB_COMPNAME      "zlib"
#define BLOSC_ZSTD_COMPNAME      "zstd"

/* Compression library codes (what a chunk's flags record). */
#define BLOSC_BLOSCLZ_LIB   0
#define BLOSC_LZ4_LIB       1
#define BLOSC_SNAPPY_LIB    2
#define BLOSC_ZLIB_LIB      3
#define BLOSC_ZSTD_LIB      4

/* Compression library names. */
#define BLOSC_BLOSCLZ_LIBNAME   "BloscLZ"
#define BLOSC_LZ4_LIBNAME       "LZ4"
#define BLOSC_SNAPPY_LIBNAME    "Snappy"
#define BLOSC_ZLIB_LIBNAME      "Zlib"
#define BLOSC_ZSTD_LIBNAME      "Zstd"

/* Stream format of each compressor (LZ4HC writes LZ4 streams). */
#define BLOSC_BLOSCLZ_FORMAT  BLOSC_BLOSCLZ_LIB
#define BLOSC_LZ4_FORMAT      BLOSC_LZ4_LIB
#define BLOSC_LZ4HC_FORMAT    BLOSC_LZ4_LIB
#define BLOSC_SNAPPY_FORMAT   BLOSC_SNAPPY_LIB
#define BLOSC_ZLIB_FORMAT     BLOSC_ZLIB_LIB
#define BLOSC_ZSTD_FORMAT     BLOSC_ZSTD_LIB

/* Stream format versions. */
#define BLOSC_BLOSCLZ_VERSION_FORMAT  1
#define BLOSC_LZ4_VERSION_FORMAT      1
#define BLOSC_LZ4HC_VERSION_FORMAT    1
#define BLOSC_SNAPPY_VERSION_FORMAT   1
#define BLOSC_ZLIB_VERSION_FORMAT     1
#define BLOSC_ZSTD_VERSION_FORMAT     1

/* Split modes (blosc_set_splitmode, BLOSC_SPLITMODE). */
#define BLOSC_ALWAYS_SPLIT 1
#define BLOSC_NEVER_SPLIT 2
#define BLOSC_AUTO_SPLIT 3
#define BLOSC_FORWARD_COMPAT_SPLIT 4
