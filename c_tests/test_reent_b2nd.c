// c_tests: compare-output
// User callbacks calling back into the b2nd array's super-chunk while b2nd reads and writes
// run: a user codec (byte run-length) whose encoder and decoder read the super-chunk's
// vlmetalayer, its b2nd metalayer and one of its chunks through the API. Reads of one block,
// of whole chunks, across chunk edges, whole arrays and orthogonal selections, in memory and
// in a frame file, must return the right data with every nested call succeeding (nothing may
// hold the super-chunk locked while the codec runs).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "blosc2.h"
#include "b2nd.h"

enum { CODEC = 252, ROWS = 64, COLS = 96 };

static blosc2_schunk *G;  /* the super-chunk the codec works for */
static int calls[2], failures[2], foreign[2];

static void reenter(int who, void *schunk) {
  if (G == NULL || schunk != G) { foreign[who]++; return; }
  calls[who]++;
  uint8_t *content = NULL; int32_t len = 0;
  if (blosc2_vlmeta_get(G, "hint", &content, &len) < 0 || len != 1 || content[0] != 42) failures[who]++;
  free(content);
  content = NULL;
  if (blosc2_meta_get(G, "b2nd", &content, &len) < 0 || len <= 0) failures[who]++;
  free(content);
  if (G->nchunks > 0) {
    uint8_t *chunk; bool nf;
    if (blosc2_schunk_get_chunk(G, 0, &chunk, &nf) <= 0) failures[who]++;
    else if (nf) free(chunk);
  }
}

/* Byte run-length: (value, count) pairs; 0 (store the block) when that is not smaller. */
static int enc(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta, blosc2_cparams *cp, const void *chunk) {
  reenter(0, cp->schunk);
  int32_t o = 0;
  for (int32_t i = 0; i < inlen;) {
    int32_t run = 1;
    while (i + run < inlen && run < 255 && in[i + run] == in[i]) run++;
    if (o + 2 > outlen || o + 2 >= inlen) return 0;
    out[o++] = in[i];
    out[o++] = (uint8_t)run;
    i += run;
  }
  return o;
}

static int dec(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta, blosc2_dparams *dp, const void *chunk) {
  reenter(1, dp->schunk);
  int32_t o = 0;
  for (int32_t i = 0; i + 1 < inlen; i += 2) {
    if (o + in[i + 1] > outlen) return -1;
    memset(out + o, in[i], in[i + 1]);
    o += in[i + 1];
  }
  return o;
}

static uint8_t value(int64_t r, int64_t c) { return (uint8_t)((r * 7 + c / 8) % 251); }

static int check(const uint8_t *buf, const int64_t *start, const int64_t *stop) {
  int64_t w = stop[1] - start[1];
  for (int64_t r = start[0]; r < stop[0]; r++)
    for (int64_t c = start[1]; c < stop[1]; c++)
      if (buf[(r - start[0]) * w + (c - start[1])] != value(r, c)) return 0;
  return 1;
}

static void reads(const char *tag, b2nd_array_t *a) {
  static const int64_t sl[][4] = {
    {1, 2, 5, 9},        /* inside one block */
    {0, 0, 32, 48},      /* one whole chunk */
    {16, 24, 48, 72},    /* across chunk edges */
    {0, 0, ROWS, COLS},  /* everything */
  };
  uint8_t *buf = malloc(ROWS * COLS);
  for (size_t k = 0; k < sizeof(sl) / sizeof(sl[0]); k++) {
    int64_t start[2] = {sl[k][0], sl[k][1]}, stop[2] = {sl[k][2], sl[k][3]};
    int64_t shape[2] = {stop[0] - start[0], stop[1] - start[1]};
    memset(buf, 0xee, ROWS * COLS);
    int rc = b2nd_get_slice_cbuffer(a, start, stop, buf, shape, shape[0] * shape[1]);
    printf("  %s get_slice %zu: rc=%d data=%d\n", tag, k, rc, rc == 0 && check(buf, start, stop));
  }
  memset(buf, 0xee, ROWS * COLS);
  int rc = b2nd_to_cbuffer(a, buf, ROWS * COLS);
  int64_t all0[2] = {0, 0}, all1[2] = {ROWS, COLS};
  printf("  %s to_cbuffer: rc=%d data=%d\n", tag, rc, rc == 0 && check(buf, all0, all1));
  int64_t rows[] = {3, 40, 63}, cols[] = {0, 50, 95};
  int64_t *sel[2] = {rows, cols};
  int64_t selsize[2] = {3, 3}, outshape[2] = {3, 3};
  uint8_t o9[9];
  rc = b2nd_get_orthogonal_selection(a, sel, selsize, o9, outshape, sizeof(o9));
  int ok = rc == 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) ok = ok && o9[i * 3 + j] == value(rows[i], cols[j]);
  printf("  %s orthogonal: rc=%d data=%d\n", tag, rc, ok);
  free(buf);
}

static void run(const char *urlpath) {
  printf("== %s\n", urlpath ? "file" : "memory");
  if (urlpath) blosc2_remove_urlpath(urlpath);
  memset(calls, 0, sizeof(calls)); memset(failures, 0, sizeof(failures)); memset(foreign, 0, sizeof(foreign));
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = CODEC; cp.typesize = 1; cp.nthreads = 1; cp.clevel = 5;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOSHUFFLE;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)urlpath, .cparams = &cp, .dparams = &dp};
  int64_t shape[2] = {ROWS, COLS};
  int32_t chunk[2] = {32, 48}, block[2] = {8, 16};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunk, block, "|u1", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *a = NULL;
  int rc = b2nd_empty(ctx, &a);
  printf("  empty=%d\n", rc);
  if (rc < 0) { b2nd_free_ctx(ctx); return; }
  G = a->sc;
  uint8_t hint = 42;
  printf("  vlmeta_add=%d\n", blosc2_vlmeta_add(G, "hint", &hint, 1, NULL));
  uint8_t *all = malloc(ROWS * COLS);
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) all[r * COLS + c] = value(r, c);
  int64_t s0[2] = {0, 0};
  rc = b2nd_set_slice_cbuffer(all, shape, ROWS * COLS, s0, shape, a);
  printf("  set_slice=%d nchunks=%lld\n", rc, (long long)G->nchunks);
  reads("written", a);
  b2nd_free(a);
  G = NULL;
  if (urlpath) {
    rc = b2nd_open(urlpath, &a);
    printf("  open=%d\n", rc);
    if (rc == 0) {
      G = a->sc;
      reads("reopened", a);
      b2nd_free(a);
      G = NULL;
    }
    blosc2_remove_urlpath(urlpath);
  }
  printf("  encoder calls>0=%d failures=%d foreign=%d; decoder calls>0=%d failures=%d foreign=%d\n",
         calls[0] > 0, failures[0], foreign[0], calls[1] > 0, failures[1], foreign[1]);
  free(all);
  b2nd_free_ctx(ctx);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  blosc2_init();
  blosc2_codec codec = {.compcode = CODEC, .compname = "rle_reent", .complib = CODEC, .version = 1,
                        .encoder = enc, .decoder = dec};
  printf("register=%d\n", blosc2_register_codec(&codec));
  run(NULL);
  run("treent_b2nd.b2nd");
  blosc2_destroy();
  return 0;
}
