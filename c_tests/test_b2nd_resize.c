// c_tests: compare-output
// b2nd_resize / insert / append / delete, b2nd_get_slice, b2nd_copy and
// b2nd_get_sparse_cbuffer, in memory and on disk: after every step the shape, the items and
// the frame bytes must equal the reference's. (Cases where the reference is wrong are in
// test_b2nd_defects.c.)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include "b2nd.h"

static uint64_t fnv(const uint8_t *p, int64_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
  return h;
}

static void show(const char *what, int rc, const b2nd_array_t *a) {
  printf("%s rc=%d shape", what, rc);
  for (int i = 0; i < a->ndim; i++) printf(" %" PRId64, a->shape[i]);
  int64_t n = a->nitems * a->sc->typesize;
  uint8_t *buf = calloc(1, n + 1);
  int rc2 = b2nd_to_cbuffer(a, buf, n);
  printf(" nchunks=%" PRId64 " items rc=%d hash=%016" PRIx64, a->sc->nchunks, rc2, fnv(buf, n));
  free(buf);
  uint8_t *cframe;
  int64_t len;
  bool needs_free;
  rc2 = b2nd_to_cframe(a, &cframe, &len, &needs_free);
  printf(" frame rc=%d len=%" PRId64 " hash=%016" PRIx64 "\n", rc2, len, rc2 == 0 ? fnv(cframe, len) : 0);
  if (rc2 == 0 && needs_free) free(cframe);
}

static uint8_t *pattern(int64_t n, int seed) {
  uint8_t *b = malloc(n + 1);
  for (int64_t i = 0; i < n; i++) b[i] = (uint8_t)(i * 31 + seed + (i >> 5));
  return b;
}

static b2nd_array_t *make(int8_t nd, const int64_t *shape, const int32_t *chunk, const int32_t *block, int ts,
                          const char *urlpath, bool contiguous) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = ts;
  cparams.nthreads = 1;
  blosc2_storage st = {.cparams = &cparams, .contiguous = contiguous, .urlpath = (char *)urlpath};
  blosc2_metalayer meta = {.name = "user", .content = (uint8_t *)"\x93\x01\x02\x03", .content_len = 4};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, nd, shape, chunk, block, "<u4", 0, &meta, 1);
  int64_t n = ts;
  for (int i = 0; i < nd; i++) n *= shape[i];
  uint8_t *data = pattern(n, 1);
  b2nd_array_t *a;
  int rc = b2nd_from_cbuffer(ctx, &a, data, n);
  free(data);
  b2nd_free_ctx(ctx);
  show("  created", rc, a);
  return a;
}

static void edits(const char *urlpath, bool contiguous) {
  printf("storage %s %s\n", urlpath ? urlpath : "memory", contiguous ? "contiguous" : "sparse");
  blosc2_remove_urlpath(urlpath);
  int64_t shape[2] = {10, 7};
  int32_t chunk[2] = {4, 3}, block[2] = {3, 2};
  b2nd_array_t *a = make(2, shape, chunk, block, 4, urlpath, contiguous);
  uint8_t *buf = pattern(4 * 10 * 7 * 4, 9);
  show("append axis0 2 rows", b2nd_append(a, buf, 2 * 7 * 4, 0), a);
  show("append axis1 1 col", b2nd_append(a, buf, 12 * 1 * 4, 1), a);
  show("insert axis0 at 4, 4 rows", b2nd_insert(a, buf, 4 * 8 * 4, 0, 4), a);
  show("insert axis1 at end", b2nd_insert(a, buf, 16 * 2 * 4, 1, 8), a);
  int64_t grow[2] = {17, 12};
  show("resize grow at end", b2nd_resize(a, grow, NULL), a);
  show("delete axis1 at 3 len 3", b2nd_delete(a, 1, 3, 3), a);
  show("delete axis0 at end len 5", b2nd_delete(a, 0, 12, 5), a);
  int64_t shrink[2] = {12, 6};
  show("resize shrink at end", b2nd_resize(a, shrink, NULL), a);
  int64_t mid[2] = {16, 6}, start[2] = {4, 6};
  show("resize grow at 4", b2nd_resize(a, mid, start), a);
  int64_t back[2] = {12, 6}, start2[2] = {8, 6};
  show("resize shrink at 8", b2nd_resize(a, back, start2), a);
  show("delete axis0 at 0 len 4", b2nd_delete(a, 0, 0, 4), a);
  free(buf);
  b2nd_free(a);
  if (urlpath) {
    b2nd_array_t *b;
    int rc = b2nd_open(urlpath, &b);
    show("reopened", rc, b);
    b2nd_free(b);
    blosc2_remove_urlpath(urlpath);
  }
}

static void fast_appends(void) {
  int64_t s1[1] = {8};
  int32_t c1[1] = {4}, b1[1] = {2};
  b2nd_array_t *a = make(1, s1, c1, b1, 2, NULL, false);
  uint8_t *buf = pattern(64, 3);
  show("1-d append one chunk", b2nd_append(a, buf, 8, 0), a);
  show("1-d append 3 items", b2nd_append(a, buf, 6, 0), a);
  b2nd_free(a);
  int64_t s2[2] = {8, 6};
  int32_t c2[2] = {4, 6}, b2[2] = {2, 6};
  a = make(2, s2, c2, b2, 4, NULL, false);
  uint8_t *buf2 = pattern(24 * 4 * 2, 5);
  show("2-d append one chunk", b2nd_append(a, buf2, 24 * 4, 0), a);
  show("2-d append two chunks", b2nd_append(a, buf2, 48 * 4, 0), a);
  b2nd_free(a);
  free(buf);
  free(buf2);
}

static void slices_and_copies(void) {
  int64_t shape[3] = {9, 8, 5};
  int32_t chunk[3] = {4, 3, 5}, block[3] = {2, 2, 3};
  b2nd_array_t *a = make(3, shape, chunk, block, 2, NULL, false);
  uint8_t vl[3] = {1, 2, 3};
  printf("vlmeta_add rc=%d\n", blosc2_vlmeta_add(a->sc, "vl", vl, 3, NULL) >= 0);

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 2;
  cparams.nthreads = 1;
  blosc2_storage st = {.cparams = &cparams};
  int32_t chunk2[3] = {3, 3, 2}, block2[3] = {2, 1, 2};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 3, shape, chunk2, block2, NULL, 0, NULL, 0);
  b2nd_array_t *s;
  int64_t start[3] = {1, 2, 0}, stop[3] = {8, 7, 4};
  int rc = b2nd_get_slice(ctx, &s, a, start, stop);
  show("get_slice", rc, s);
  b2nd_free(s);
  b2nd_array_t *c;
  rc = b2nd_copy(ctx, a, &c);
  show("copy other chunks", rc, c);
  printf("  metalayers %d vlmetalayers %d user=%d\n", c->sc->nmetalayers, c->sc->nvlmetalayers,
         blosc2_meta_exists(c->sc, "user"));
  b2nd_free(c);
  b2nd_free_ctx(ctx);
  ctx = b2nd_create_ctx(&st, 3, shape, chunk, block, NULL, 0, NULL, 0);
  rc = b2nd_copy(ctx, a, &c);
  show("copy same chunks", rc, c);
  printf("  metalayers %d vlmetalayers %d\n", c->sc->nmetalayers, c->sc->nvlmetalayers);
  b2nd_free(c);
  b2nd_free_ctx(ctx);

  int64_t coords[6] = {0, 359, 17, 200, 5, 123};
  uint16_t out[6];
  rc = b2nd_get_sparse_cbuffer(a, 6, coords, out, sizeof out);
  printf("sparse rc=%d:", rc);
  for (int i = 0; i < 6; i++) printf(" %u", out[i]);
  printf("\n");
  b2nd_free(a);
}

int main(void) {
  blosc2_init();
  edits(NULL, false);
  edits("b2nd_resize.b2nd", true);
  edits("b2nd_resize_dir.b2nd", false);
  fast_appends();
  slices_and_copies();
  blosc2_destroy();
  return 0;
}
