// c_tests: compare-output
// blosc2_schunk_get_sparse_buffer as the reference: items gathered in parallel (one call of
// the threads callback) when nthreads > 1, one by one with a delta filter or a postfilter,
// and the reference's codes for bad arguments and layouts it does not support.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "blosc2.h"

static int calls;
static void pool(void *data, void (*dojob)(void *), int njobs, size_t elsize, void *jobs) {
  calls++;
  for (int i = 0; i < njobs; i++) dojob((uint8_t *)jobs + (size_t)i * elsize);
}

static int negate(blosc2_postfilter_params *p) {
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int i = 0; i < p->size / 4; i++) out[i] = -in[i];
  return 0;
}

static blosc2_schunk *make(int nthreads, int delta, int post, int32_t blocksize, int nchunks, int chunkitems) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4; cp.blocksize = blocksize; cp.nthreads = nthreads;
  if (delta) cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = nthreads;
  blosc2_postfilter_params pp = {0};
  if (post) { dp.postfilter = negate; dp.postparams = &pp; }
  blosc2_storage st = {.cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  int32_t *buf = malloc((size_t)chunkitems * 4);
  for (int c = 0; c < nchunks; c++) {
    for (int i = 0; i < chunkitems; i++) buf[i] = c * chunkitems + i;
    blosc2_schunk_append_buffer(sc, buf, chunkitems * 4);
  }
  free(buf);
  return sc;
}

/* Items are printed unless the reference gets them wrong (getitem past the first block of a
   delta chunk, REFERENCE-DEFECTS.md); then they are checked against `want` instead. */
static const int32_t *want;
static void gather(const char *what, blosc2_schunk *sc, int64_t n, const int64_t *coords) {
  int32_t out[16];
  for (int i = 0; i < 16; i++) out[i] = -7;
  calls = 0;
  blosc2_set_threads_callback(pool, NULL);
  int rc = blosc2_schunk_get_sparse_buffer(sc, n, coords, out);
  blosc2_set_threads_callback(NULL, NULL);
  printf("%s: rc=%d callback-calls=%d items:", what, rc, calls);
  if (want != NULL) {
    int wrong = 0;
    for (int i = 0; i < n && i < 16; i++) wrong += out[i] != want[i];
    if (getenv("BLOSC_TEST_IMPL") && strcmp(getenv("BLOSC_TEST_IMPL"), "ours") == 0 && wrong) {
      fprintf(stderr, "%s: %d wrong items\n", what, wrong);
      exit(1);
    }
    printf(" (checked)\n");
    return;
  }
  for (int i = 0; i < n && i < 16; i++) printf(" %d", out[i]);
  printf("\n");
}

int main(void) {
  blosc2_init();
  int64_t coords[8] = {0, 31, 128, 300, 700, 1023, 300, 5};
  blosc2_schunk *sc = make(4, 0, 0, 128, 8, 128);
  gather("nthreads=4", sc, 8, coords);
  gather("one item", sc, 1, coords + 3);
  gather("none", sc, 0, coords);
  int64_t bad[3] = {1, 1024, 2};
  gather("past the end", sc, 3, bad);
  int64_t neg[2] = {-1, 2};
  gather("negative", sc, 2, neg);
  int32_t out[4];
  printf("negative count: %d\n", blosc2_schunk_get_sparse_buffer(sc, -1, coords, out));
  printf("NULL coords: %d\n", blosc2_schunk_get_sparse_buffer(sc, 2, NULL, out));
  printf("NULL buffer: %d\n", blosc2_schunk_get_sparse_buffer(sc, 2, coords, NULL));
  printf("NULL schunk: %d\n", blosc2_schunk_get_sparse_buffer(NULL, 2, coords, out));
  blosc2_schunk_free(sc);

  sc = make(1, 0, 0, 128, 8, 128);
  gather("nthreads=1", sc, 8, coords);
  blosc2_schunk_free(sc);

  sc = make(4, 1, 0, 128, 8, 128);
  static const int32_t delta_items[8] = {0, 31, 128, 300, 700, 1023, 300, 5};
  want = delta_items;
  gather("delta", sc, 8, coords);
  want = NULL;
  blosc2_schunk_free(sc);

  sc = make(4, 0, 1, 128, 8, 128);
  gather("postfilter", sc, 8, coords);
  blosc2_schunk_free(sc);

  /* Blocks holding a part of an item, and chunks with a shorter last one. */
  sc = make(2, 0, 0, 256, 5, 100);
  int64_t c2[5] = {499, 0, 250, 99, 100};
  gather("100-item chunks", sc, 5, c2);
  int32_t tail[10];
  for (int i = 0; i < 10; i++) tail[i] = 9000 + i;
  blosc2_schunk_append_buffer(sc, tail, sizeof(tail));
  int64_t c3[3] = {505, 1, 509};
  gather("short last chunk", sc, 3, c3);
  blosc2_schunk_free(sc);

  /* An empty super-chunk (no chunk size yet). */
  sc = make(2, 0, 0, 128, 0, 128);
  gather("empty", sc, 2, coords);
  blosc2_schunk_free(sc);
  blosc2_destroy();
  return 0;
}
