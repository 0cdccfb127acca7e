// c_tests: compare-output
// Chunk-level calls with bad arguments and damaged headers return what the reference returns
// (a block size larger than nbytes is read as nbytes; set_maskout on a compression context is
// accepted). Reused compression contexts are not compared: the reference carries a chunk's
// block size into the next (REFERENCE-DEFECTS.md).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

enum { N = 40000 };
static int32_t in[N], out[N + 16];
static uint8_t chunk[N * 4 + BLOSC2_MAX_OVERHEAD + 64];

static int compress_default(int nbytes, int blocksize) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = blocksize;
  blosc2_context *c = blosc2_create_cctx(cp);
  int cs = blosc2_compress_ctx(c, in, nbytes, chunk, sizeof(chunk));
  blosc2_free_ctx(c);
  return cs;
}

static void bad_arguments(void) {
  int cs = compress_default(N * 4, 0);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *d = blosc2_create_dctx(dp);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_context *c = blosc2_create_cctx(cp);
  printf("decompress_ctx short dest: %d\n", blosc2_decompress_ctx(d, chunk, cs, out, N * 4 - 1));
  printf("decompress_ctx srcsize 15: %d\n", blosc2_decompress_ctx(d, chunk, 15, out, N * 4));
  printf("decompress_ctx srcsize cs-1: %d\n", blosc2_decompress_ctx(d, chunk, cs - 1, out, N * 4));
  printf("decompress_ctx with a cctx: %d\n", blosc2_decompress_ctx(c, chunk, cs, out, N * 4));
  printf("compress_ctx with a dctx: %d\n", blosc2_compress_ctx(d, in, 100, chunk + 20000, 200));
  printf("decompress short dest: %d\n", blosc2_decompress(chunk, cs, out, 100));
  printf("blosc1_decompress short dest: %d\n", blosc1_decompress(chunk, out, 100));
  int32_t it[8];
  printf("getitem_ctx nitems -1: %d\n", blosc2_getitem_ctx(d, chunk, cs, 0, -1, it, sizeof it));
  printf("getitem_ctx start -1: %d\n", blosc2_getitem_ctx(d, chunk, cs, -1, 2, it, sizeof it));
  printf("getitem_ctx past end: %d\n", blosc2_getitem_ctx(d, chunk, cs, N - 1, 2, it, sizeof it));
  printf("getitem_ctx dest too small: %d\n", blosc2_getitem_ctx(d, chunk, cs, 0, 9, it, sizeof it));
  printf("getitem_ctx dest too small, past end: %d\n", blosc2_getitem_ctx(d, chunk, cs, N, 9, it, sizeof it));
  printf("getitem_ctx nitems 0: %d\n", blosc2_getitem_ctx(d, chunk, cs, 5, 0, it, sizeof it));
  {
    /* (The reference's getitem copies the chunk's typesize and block size into the
       context's compression parameters: a separate context, and only the code.) */
    blosc2_context *c2 = blosc2_create_cctx(cp);
    printf("getitem_ctx with a cctx: %d\n", blosc2_getitem_ctx(c2, chunk, cs, 3, 2, it, sizeof it));
    blosc2_free_ctx(c2);
  }
  printf("getitem nitems -1: %d\n", blosc2_getitem(chunk, cs, 0, -1, it, sizeof it));
  printf("blosc1_getitem past end: %d\n", blosc1_getitem(chunk, N - 1, 2, it));
  printf("blosc1_getitem: %d (%d)\n", blosc1_getitem(chunk, 7, 2, it), it[0]);
  printf("getitem_bytes_ctx unaligned: %d\n", blosc2_getitem_bytes_ctx(d, chunk, cs, 2, 8, it, sizeof it));
  printf("getitem_bytes_ctx: %d (%d)\n", blosc2_getitem_bytes_ctx(d, chunk, cs, 8, 8, it, sizeof it), it[0]);
  printf("getitem_bytes_ctx negative: %d\n", blosc2_getitem_bytes_ctx(d, chunk, cs, -4, 8, it, sizeof it));
  printf("compress destsize 31: %d\n", blosc2_compress(5, 1, 4, in, 1000, chunk + 20000, 31));
  printf("compress clevel 10: %d\n", blosc2_compress(10, 1, 4, in, 1000, chunk + 20000, 2000));
  printf("compress doshuffle 3: %d\n", blosc2_compress(5, 3, 4, in, 1000, chunk + 20000, 2000));
  printf("blosc1_compress nbytes 0: %d\n", blosc1_compress(5, 1, 4, 0, in, chunk + 20000, 2000));
  printf("compress destsize 32, 1000 bytes: %d\n", blosc2_compress(5, 1, 4, in, 1000, chunk + 20000, 32));
  printf("compress destsize 100, 1000 bytes: %d\n", blosc2_compress(5, 0, 4, in, 1000, chunk + 20000, 100));

  /* maskout on a compression context, wrong sizes */
  bool mask[3] = {true, false, true};
  printf("set_maskout on a cctx: %d\n", blosc2_set_maskout(c, mask, 3));
  printf("set_maskout: %d\n", blosc2_set_maskout(d, mask, 3));
  printf("decompress with a maskout of the wrong size: %d\n", blosc2_decompress_ctx(d, chunk, cs, out, N * 4));
  printf("then without: %d\n", blosc2_decompress_ctx(d, chunk, cs, out, N * 4));

  /* params of the other kind of context */
  blosc2_cparams gc;
  blosc2_dparams gd;
  memset(&gc, 0, sizeof gc);
  memset(&gd, 0, sizeof gd);
  int r1 = blosc2_ctx_get_cparams(d, &gc);
  int r2 = blosc2_ctx_get_dparams(c, &gd);
  printf("ctx_get_cparams of a dctx: %d; ctx_get_dparams of a cctx: %d\n", r1, r2);
  r1 = blosc2_ctx_get_cparams(c, &gc);
  r2 = blosc2_ctx_get_dparams(d, &gd);
  printf("get_cparams %d: compcode %d clevel %d typesize %d nthreads %d blocksize %d splitmode %d filters %d\n", r1,
         gc.compcode, gc.clevel, gc.typesize, gc.nthreads, gc.blocksize, gc.splitmode, gc.filters[5]);
  printf("get_dparams %d: nthreads %d\n", r2, gd.nthreads);

  /* VL calls on the wrong kind of chunk and bad arguments */
  int32_t nb = -1;
  printf("vlchunk_get_nblocks of a regular chunk: %d\n", blosc2_vlchunk_get_nblocks(chunk, cs, &nb));
  uint8_t *blk = NULL;
  int32_t bl = 0;
  printf("vldecompress_block_ctx of a regular chunk: %d\n", blosc2_vldecompress_block_ctx(d, chunk, cs, 0, &blk, &bl));
  const void *srcs[2] = {in, in + 100};
  int32_t lens[2] = {400, 0};
  printf("vlcompress_ctx with an empty block: %d\n", blosc2_vlcompress_ctx(c, srcs, lens, 2, chunk + 20000, 4000));
  lens[1] = 400;
  printf("vlcompress_ctx nblocks 0: %d\n", blosc2_vlcompress_ctx(c, srcs, lens, 0, chunk + 20000, 4000));
  printf("vlcompress_ctx with a dctx: %d\n", blosc2_vlcompress_ctx(d, srcs, lens, 2, chunk + 20000, 4000));
  int vcs = blosc2_vlcompress_ctx(c, srcs, lens, 2, chunk + 20000, 4000);
  printf("vlcompress_ctx: %d\n", vcs);
  printf("vlcompress_ctx tiny dest: %d\n", blosc2_vlcompress_ctx(c, srcs, lens, 2, chunk + 30000, 40));
  printf("vlchunk_get_nblocks: %d (%d)\n", blosc2_vlchunk_get_nblocks(chunk + 20000, vcs, &nb), nb);
  printf("vldecompress_block_ctx block 2: %d\n", blosc2_vldecompress_block_ctx(d, chunk + 20000, vcs, 2, &blk, &bl));
  printf("vldecompress_block_ctx block -1: %d\n", blosc2_vldecompress_block_ctx(d, chunk + 20000, vcs, -1, &blk, &bl));
  printf("getitem_ctx of a VL chunk: %d\n", blosc2_getitem_ctx(d, chunk + 20000, vcs, 0, 2, it, sizeof it));
  printf("decompress_ctx of a VL chunk: %d\n", blosc2_decompress_ctx(d, chunk + 20000, vcs, out, N * 4));
  blosc2_free_ctx(c);
  blosc2_free_ctx(d);
}

static void damaged_headers(void) {
  for (int i = 0; i < N; i++) in[i] = i * 7;
  const int nbytes[] = {N * 4, 100, 4000};
  for (int k = 0; k < 3; k++) {
    int cs = compress_default(nbytes[k], 0);
    int32_t bs;
    memcpy(&bs, chunk + 8, 4);
    const int32_t blocks[] = {bs + 4, nbytes[k], nbytes[k] + 4, nbytes[k] * 2, 0, -4};
    for (int b = 0; b < 6; b++) {
      uint8_t c2[sizeof(chunk)];
      memcpy(c2, chunk, (size_t)cs);
      memcpy(c2 + 8, &blocks[b], 4);
      int32_t nb_ = -1, cb_ = -1, bs_ = -1;
      int sz = blosc2_cbuffer_sizes(c2, &nb_, &cb_, &bs_);
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      blosc2_context *d = blosc2_create_dctx(dp);
      int rc = blosc2_decompress_ctx(d, c2, cs, out, N * 4);
      int32_t it[2] = {0, 0};
      int g = blosc2_getitem_ctx(d, c2, cs, 1, 2, it, sizeof it);
      printf("nbytes %6d blocksize %6d -> %6d: sizes %d (bs %d) decompress %d getitem %d (%d)\n", nbytes[k], bs,
             blocks[b], sz, bs_, rc, g, g > 0 ? it[0] : 0);
      blosc2_free_ctx(d);
    }
  }
}

int main(void) {
  blosc2_init();
  for (int i = 0; i < N; i++) in[i] = i;
  bad_arguments();
  damaged_headers();
  blosc2_destroy();
  return 0;
}
