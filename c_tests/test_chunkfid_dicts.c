// c_tests: compare-output
// Dictionaries (cparams.use_dict) give the reference's chunks byte for byte: LZ4/LZ4HC use
// the first filtered bytes as the dictionary, zstd trains one on nblocks*typesize samples,
// VL-block chunks of 8+ blocks get one too (of any codec), and codecs without dictionary
// support are refused up front with BLOSC2_ERROR_CODEC_PARAM (-8), or after gathering the
// samples with BLOSC2_ERROR_CODEC_DICT (-9) when there is no source buffer. Every chunk
// printed here must also decode back to its input with the library that wrote it. (zlib
// chunks from clevel 2 on are libdeflate's here: only their flags and dictionary compare.)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

static uint64_t fnv(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

/* cbytes, flags, the dictionary's size and a hash of the whole chunk; with `exact` 0 only
   the flags and the dictionary's size (the chunk's decisions, not its bytes) */
static void show_chunk(const char *tag, const uint8_t *c, int cb, int exact) {
  if (cb < BLOSC_EXTENDED_HEADER_LENGTH) {
    printf("%-28s rc=%d\n", tag, cb);
    return;
  }
  int32_t nb, bs;
  memcpy(&nb, c + 4, 4);
  memcpy(&bs, c + 8, 4);
  int vl = c[BLOSC2_CHUNK_BLOSC2_FLAGS2] & BLOSC2_VL_BLOCKS;
  int nblocks = vl ? bs : (nb + bs - 1) / bs;
  int32_t ds = -1;
  if ((c[BLOSC2_CHUNK_BLOSC2_FLAGS] & BLOSC2_USEDICT) && !(c[BLOSC2_CHUNK_FLAGS] & BLOSC_MEMCPYED))
    memcpy(&ds, c + BLOSC_EXTENDED_HEADER_LENGTH + 4 * nblocks, 4);
  if (!exact) {
    printf("%-28s flags=%02x b2flags=%02x dict=%d\n", tag, c[BLOSC2_CHUNK_FLAGS], c[BLOSC2_CHUNK_BLOSC2_FLAGS], ds);
    return;
  }
  printf("%-28s rc=%d flags=%02x b2flags=%02x dict=%d hash=%016llx\n", tag, cb, c[BLOSC2_CHUNK_FLAGS],
         c[BLOSC2_CHUNK_BLOSC2_FLAGS], ds, (unsigned long long)fnv(c, (size_t)cb));
}

static void show(const char *tag, const uint8_t *c, int cb) { show_chunk(tag, c, cb, 1); }

enum { N = 300000, NB = 64 };
static uint8_t src[N], dst[N + 70000], back[N];
static char text[NB][128];

int main(void) {
  blosc2_init();
  uint32_t s = 1;
  for (int i = 0; i < N / 4; i++) {
    s = s * 1103515245u + 12345u;
    int32_t v = i / 3 + (int32_t)((s >> 16) & 7);
    memcpy(src + 4 * i, &v, 4);
  }
  int failures = 0;
  const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  const char *names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  const int sizes[] = {100, 5000, 100000, N};
  for (int k = 0; k < 5; k++)
    for (int ts = 1; ts <= 8; ts *= 8)
      for (int cl = 1; cl <= 9; cl += 4)
        for (int z = 0; z < 4; z++) {
          if (cl == 5 && z < 2) continue;
          blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
          cp.compcode = (uint8_t)codecs[k];
          cp.typesize = ts;
          cp.clevel = (uint8_t)cl;
          cp.use_dict = 1;
          cp.nthreads = 1;
          blosc2_context *c = blosc2_create_cctx(cp);
          int cb = blosc2_compress_ctx(c, src, sizes[z], dst, (int32_t)sizeof(dst));
          char tag[64];
          snprintf(tag, sizeof tag, "%s ts%d cl%d n%d", names[k], ts, cl, sizes[z]);
          show(tag, dst, cb);
          if (cb > 0) {
            blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
            blosc2_context *d = blosc2_create_dctx(dp);
            int rc = blosc2_decompress_ctx(d, dst, cb, back, N);
            if (rc != sizes[z] || memcmp(back, src, (size_t)sizes[z]) != 0) {
              printf("  round trip failed: %d\n", rc);
              failures++;
            }
            int32_t item[4] = {0};
            int start = sizes[z] / ts - 2;
            rc = blosc2_getitem_ctx(d, dst, cb, start, 2, item, sizeof item);
            if (rc != 2 * ts || memcmp(item, src + start * ts, (size_t)(2 * ts)) != 0) {
              printf("  getitem of the last items failed: %d\n", rc);
              failures++;
            }
            blosc2_free_ctx(d);
          }
          blosc2_free_ctx(c);
        }

  /* Two threads write the same chunk here (blocks are placed in order). Not printed: the
     reference gathers its samples in the order its threads finish, so its dictionary, and
     the chunk, vary from run to run with two threads. */
  {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = BLOSC_ZSTD;
    cp.typesize = 4;
    cp.use_dict = 1;
    cp.blocksize = 16384;
    uint64_t h[2];
    for (int t = 0; t < 2; t++) {
      cp.nthreads = (int16_t)(t + 1);
      blosc2_context *c = blosc2_create_cctx(cp);
      int cb = blosc2_compress_ctx(c, src, N, dst, (int32_t)sizeof(dst));
      h[t] = cb > 0 ? fnv(dst, (size_t)cb) : 0;
      blosc2_free_ctx(c);
    }
    const char *impl = getenv("BLOSC_TEST_IMPL");
    if (h[0] != h[1] && !(impl && strcmp(impl, "reference") == 0)) {
      printf("zstd dict chunk: 1 and 2 threads write different bytes\n");
      failures++;
    }
  }

  /* One context, several chunks of the same size: each trains its own dictionary. (Sizes
     stay equal: the reference carries a chunk's block size into the next, a known defect.) */
  for (int k = 1; k < 5; k += 3) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)codecs[k];
    cp.typesize = 4;
    cp.use_dict = 1;
    blosc2_context *c = blosc2_create_cctx(cp);
    for (int r = 0; r < 3; r++) {
      int cb = blosc2_compress_ctx(c, src + r * 1000, 100000, dst, (int32_t)sizeof(dst));
      char tag[64];
      snprintf(tag, sizeof tag, "reuse %s #%d", names[k], r);
      show(tag, dst, cb);
    }
    blosc2_free_ctx(c);
  }

  /* Codecs without dictionaries, and the order of the checks. */
  {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = BLOSC_BLOSCLZ;
    cp.use_dict = 1;
    blosc2_context *c = blosc2_create_cctx(cp);
    printf("blosclz, NULL source, 0 bytes: %d\n", blosc2_compress_ctx(c, NULL, 0, dst, 1000));
    printf("blosclz, a source of 0 bytes: %d\n", blosc2_compress_ctx(c, src, 0, dst, 1000));
    printf("blosclz, dest of 10 bytes: %d\n", blosc2_compress_ctx(c, src, 1200, dst, 10));
    blosc2_free_ctx(c);
    cp.clevel = 0;
    c = blosc2_create_cctx(cp);
    printf("blosclz, clevel 0: %d\n", blosc2_compress_ctx(c, src, 1000, dst, 2000));
    blosc2_free_ctx(c);
    cp.clevel = 10;
    c = blosc2_create_cctx(cp);
    printf("blosclz, clevel 10: %d\n", blosc2_compress_ctx(c, src, 1000, dst, 2000));
    blosc2_free_ctx(c);
    cp.clevel = 5;
    cp.typesize = 300;
    c = blosc2_create_cctx(cp);
    printf("blosclz, typesize 300: %d\n", blosc2_compress_ctx(c, src, 1200, dst, 2000));
    blosc2_free_ctx(c);
    cp.typesize = 4;
    cp.compcode = BLOSC_LZ4;
    cp.clevel = 0;
    c = blosc2_create_cctx(cp);
    int cb = blosc2_compress_ctx(c, src, 1000, dst, 2000);
    show("lz4, clevel 0", dst, cb);
    blosc2_free_ctx(c);
  }

  /* VL-block chunks: many similar blocks train a dictionary, for every codec. */
  const void *srcs[NB];
  int32_t lens[NB];
  for (int i = 0; i < NB; i++) {
    lens[i] = snprintf(text[i], sizeof(text[i]), "{\"record\":%d,\"colour\":\"%s\",\"size\":%d.%d,\"label\":\"ITEM-%04d\",\"note\":null,\"extra\":null,\"flag\":true}",
                       i, (i % 3) ? "green" : "orange", i % 7, i % 10, i);
    srcs[i] = text[i];
  }
  for (int k = 0; k < 5; k++)
    for (int nb = 4; nb <= NB; nb *= 4)
      for (int cl = 1; cl <= 9; cl += 8) {
        blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.compcode = (uint8_t)codecs[k];
        cp.typesize = 1;
        cp.clevel = (uint8_t)cl;
        cp.use_dict = 1;
        cp.nthreads = 1;
        blosc2_context *c = blosc2_create_cctx(cp);
        int cb = blosc2_vlcompress_ctx(c, srcs, lens, nb, dst, (int32_t)sizeof(dst));
        char tag[64];
        snprintf(tag, sizeof tag, "vl %s nb%d cl%d", names[k], nb, cl);
        /* zlib from clevel 2 on: libdeflate writes the streams here (README, "zlib through
           libdeflate"), so the bytes are not the reference's; its decisions are. */
        show_chunk(tag, dst, cb, !(codecs[k] == BLOSC_ZLIB && cl >= 2));
        if (cb > 0) {
          blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
          blosc2_context *d = blosc2_create_dctx(dp);
          for (int b = 0; b < nb; b++) {
            uint8_t *blk = NULL;
            int32_t bl = 0;
            int r = blosc2_vldecompress_block_ctx(d, dst, cb, b, &blk, &bl);
            if (r != lens[b] || memcmp(blk, text[b], (size_t)lens[b]) != 0) {
              printf("  block %d: %d\n", b, r);
              failures++;
            }
            free(blk);
          }
          blosc2_free_ctx(d);
        }
        blosc2_free_ctx(c);
      }
  blosc2_destroy();
  printf("failures: %d\n", failures);
  return failures != 0;
}
