/* ABI check for the c-blosc 1.x face: compiled against Debian's c-blosc 1.21.3 blosc.h and
 * against ours (with -Werror), it prints every macro's value; run.sh requires the two
 * outputs to be equal. The typed function pointers fail to compile if a prototype differs. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <blosc.h>

#define N(m) printf("%s=%lld\n", #m, (long long)(m))
#define S(m) printf("%s=%s\n", #m, m)

static void (*p_init)(void) = blosc_init;
static void (*p_destroy)(void) = blosc_destroy;
static int (*p_compress)(int, int, size_t, size_t, const void *, void *, size_t) = blosc_compress;
static int (*p_compress_ctx)(int, int, size_t, size_t, const void *, void *, size_t, const char *,
                             size_t, int) = blosc_compress_ctx;
static int (*p_decompress)(const void *, void *, size_t) = blosc_decompress;
static int (*p_decompress_ctx)(const void *, void *, size_t, int) = blosc_decompress_ctx;
static int (*p_getitem)(const void *, int, int, void *) = blosc_getitem;
static int (*p_get_nthreads)(void) = blosc_get_nthreads;
static int (*p_set_nthreads)(int) = blosc_set_nthreads;
static const char *(*p_get_compressor)(void) = blosc_get_compressor;
static int (*p_set_compressor)(const char *) = blosc_set_compressor;
static int (*p_compcode_to_compname)(int, const char **) = blosc_compcode_to_compname;
static int (*p_compname_to_compcode)(const char *) = blosc_compname_to_compcode;
static const char *(*p_list_compressors)(void) = blosc_list_compressors;
static const char *(*p_get_version_string)(void) = blosc_get_version_string;
static int (*p_get_complib_info)(const char *, char **, char **) = blosc_get_complib_info;
static int (*p_free_resources)(void) = blosc_free_resources;
static void (*p_cbuffer_sizes)(const void *, size_t *, size_t *, size_t *) = blosc_cbuffer_sizes;
static int (*p_cbuffer_validate)(const void *, size_t, size_t *) = blosc_cbuffer_validate;
static void (*p_cbuffer_metainfo)(const void *, size_t *, int *) = blosc_cbuffer_metainfo;
static void (*p_cbuffer_versions)(const void *, int *, int *) = blosc_cbuffer_versions;
static const char *(*p_cbuffer_complib)(const void *) = blosc_cbuffer_complib;
static int (*p_get_blocksize)(void) = blosc_get_blocksize;
static void (*p_set_blocksize)(size_t) = blosc_set_blocksize;
static void (*p_set_splitmode)(int) = blosc_set_splitmode;

int main(void) {
  void *all[] = {p_init, p_destroy, p_compress, p_compress_ctx, p_decompress, p_decompress_ctx,
                 p_getitem, p_get_nthreads, p_set_nthreads, p_get_compressor, p_set_compressor,
                 p_compcode_to_compname, p_compname_to_compcode, p_list_compressors,
                 p_get_version_string, p_get_complib_info, p_free_resources, p_cbuffer_sizes,
                 p_cbuffer_validate, p_cbuffer_metainfo, p_cbuffer_versions, p_cbuffer_complib,
                 p_get_blocksize, p_set_blocksize, p_set_splitmode};
  printf("functions=%zu\n", sizeof all / sizeof *all);
  N(BLOSC_VERSION_MAJOR); N(BLOSC_VERSION_MINOR); N(BLOSC_VERSION_RELEASE);
  S(BLOSC_VERSION_STRING); S(BLOSC_VERSION_REVISION); S(BLOSC_VERSION_DATE);
  N(BLOSC_VERSION_FORMAT); N(BLOSC_MIN_HEADER_LENGTH); N(BLOSC_MAX_OVERHEAD);
  N(BLOSC_MAX_BUFFERSIZE); N(BLOSC_MAX_TYPESIZE); N(BLOSC_MAX_BLOCKSIZE); N(BLOSC_MAX_THREADS);
  N(BLOSC_NOSHUFFLE); N(BLOSC_SHUFFLE); N(BLOSC_BITSHUFFLE);
  N(BLOSC_DOSHUFFLE); N(BLOSC_MEMCPYED); N(BLOSC_DOBITSHUFFLE);
  N(BLOSC_BLOSCLZ); N(BLOSC_LZ4); N(BLOSC_LZ4HC); N(BLOSC_SNAPPY); N(BLOSC_ZLIB); N(BLOSC_ZSTD);
  S(BLOSC_BLOSCLZ_COMPNAME); S(BLOSC_LZ4_COMPNAME); S(BLOSC_LZ4HC_COMPNAME);
  S(BLOSC_SNAPPY_COMPNAME); S(BLOSC_ZLIB_COMPNAME); S(BLOSC_ZSTD_COMPNAME);
  N(BLOSC_BLOSCLZ_LIB); N(BLOSC_LZ4_LIB); N(BLOSC_SNAPPY_LIB); N(BLOSC_ZLIB_LIB); N(BLOSC_ZSTD_LIB);
  S(BLOSC_BLOSCLZ_LIBNAME); S(BLOSC_LZ4_LIBNAME); S(BLOSC_SNAPPY_LIBNAME); S(BLOSC_ZLIB_LIBNAME);
  S(BLOSC_ZSTD_LIBNAME);
  N(BLOSC_BLOSCLZ_FORMAT); N(BLOSC_LZ4_FORMAT); N(BLOSC_LZ4HC_FORMAT); N(BLOSC_SNAPPY_FORMAT);
  N(BLOSC_ZLIB_FORMAT); N(BLOSC_ZSTD_FORMAT);
  N(BLOSC_BLOSCLZ_VERSION_FORMAT); N(BLOSC_LZ4_VERSION_FORMAT); N(BLOSC_LZ4HC_VERSION_FORMAT);
  N(BLOSC_SNAPPY_VERSION_FORMAT); N(BLOSC_ZLIB_VERSION_FORMAT); N(BLOSC_ZSTD_VERSION_FORMAT);
  N(BLOSC_ALWAYS_SPLIT); N(BLOSC_NEVER_SPLIT); N(BLOSC_AUTO_SPLIT); N(BLOSC_FORWARD_COMPAT_SPLIT);
#ifdef BLOSC_EXPORT_H
  printf("export_guard=1\n");
#endif
  return 0;
}
