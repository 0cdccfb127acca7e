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

/**
 * Initialize the library (optional: every function initializes it when needed).
 */
BLOSC_EXPORT void blosc_init(void);

/**
 * Release the threads and the global context; the library can be initialized again.
 */
BLOSC_EXPORT void blosc_destroy(void);

/**
 * Compress `nbytes` bytes of `src` into `dest` (at most `destsize` bytes) with the global
 * settings. Returns the compressed size, 0 when it does not fit, or a negative error.
 */
BLOSC_EXPORT
int blosc_compress(int clevel,
                   int doshuffle,
                   size_t typesize,
                   size_t nbytes,
                   const void *src,
                   void *dest,
                   size_t destsize);

/**
 * Like `blosc_compress`, with every setting given and a private context: no global state,
 * no environment variables (except the global split mode, as in c-blosc 1.x).
 */
BLOSC_EXPORT
int blosc_compress_ctx(int clevel,
                       int doshuffle,
                       size_t typesize,
                       size_t nbytes,
                       const void *src,
                       void *dest,
                       size_t destsize,
                       const char *compressor,
                       size_t blocksize,
                       int numinternalthreads);

/**
 * Decompress the chunk at `src` into `dest` (`destsize` bytes). Returns the decompressed
 * size or a negative error.
 */
BLOSC_EXPORT int blosc_decompress(const void *src, void *dest, size_t destsize);

/**
 * `blosc_decompress` with a private context and thread count.
 */
BLOSC_EXPORT
int blosc_decompress_ctx(const void *src,
                         void *dest,
                         size_t destsize,
                         int numinternalthreads);

/**
 * Decompress `nitems` items starting at item `start` of the chunk at `src` into `dest`.
 * Returns the number of bytes written or a negative error.
 */
BLOSC_EXPORT int blosc_getitem(const void *src, int start, int nitems, void *dest);

/**
 * The number of threads used by `blosc_compress` and `blosc_decompress`.
 */
BLOSC_EXPORT int blosc_get_nthreads(void);

/**
 * Set the number of threads; returns the previous number.
 */
BLOSC_EXPORT int blosc_set_nthreads(int nthreads);

/**
 * The name of the current compressor (NULL if an unknown one was set).
 */
BLOSC_EXPORT const char *blosc_get_compressor(void);

/**
 * Select the compressor by name. Returns its code, or -1 if unknown.
 */
BLOSC_EXPORT int blosc_set_compressor(const char *compname);

/**
 * Store the name of `compcode` in `*compname` (NULL if unknown); returns the code, or -1.
 */
BLOSC_EXPORT int blosc_compcode_to_compname(int compcode, const char **compname);

/**
 * The code of a compressor name, or -1 if unknown.
 */
BLOSC_EXPORT int blosc_compname_to_compcode(const char *compname);

/**
 * The compressors this library supports, comma-separated.
 */
BLOSC_EXPORT const char *blosc_list_compressors(void);

/**
 * The c-blosc version whose API and format this library implements.
 */
BLOSC_EXPORT const char *blosc_get_version_string(void);

/**
 * Library name and version behind a compressor name, as strings the caller frees with
 * `free()`. Returns the library code, or -1 (and NULLs) for an unknown name.
 */
BLOSC_EXPORT int blosc_get_complib_info(const char *compname, char **complib, char **version);

/**
 * Release the threads of the global context. -1 if the library was never initialized.
 */
BLOSC_EXPORT int blosc_free_resources(void);

/**
 * Uncompressed size, compressed size and block size of a chunk (zeros if it is not a
 * c-blosc 1.x chunk).
 */
BLOSC_EXPORT
void blosc_cbuffer_sizes(const void *cbuffer,
                         size_t *nbytes,
                         size_t *cbytes,
                         size_t *blocksize);

/**
 * Check that `cbuffer` (of `cbytes` bytes) holds a whole chunk; stores its uncompressed
 * size in `*nbytes`. Returns 0, or -1 when it does not.
 */
BLOSC_EXPORT int blosc_cbuffer_validate(const void *cbuffer, size_t cbytes, size_t *nbytes);

/**
 * Typesize and the three filter flags (shuffle, memcpyed, bit-shuffle) of a chunk.
 */
BLOSC_EXPORT void blosc_cbuffer_metainfo(const void *cbuffer, size_t *typesize, int *flags);

/**
 * Format version and codec format version of a chunk.
 */
BLOSC_EXPORT void blosc_cbuffer_versions(const void *cbuffer, int *version, int *versionlz);

/**
 * Name of the compression library a chunk was written with (NULL if unknown).
 */
BLOSC_EXPORT const char *blosc_cbuffer_complib(const void *cbuffer);

/**
 * The forced block size (0: automatic).
 */
BLOSC_EXPORT int blosc_get_blocksize(void);

/**
 * Force a block size for `blosc_compress` (0: automatic).
 */
BLOSC_EXPORT void blosc_set_blocksize(size_t blocksize);

/**
 * Set how blocks are split into streams (`BLOSC_ALWAYS_SPLIT`, `BLOSC_NEVER_SPLIT`,
 * `BLOSC_AUTO_SPLIT`, `BLOSC_FORWARD_COMPAT_SPLIT`).
 */
BLOSC_EXPORT void blosc_set_splitmode(int splitmode);


#ifdef __cplusplus
}
#endif

#endif /* BLOSC_H */
