// c_tests: compare-output
// b2nd_get_orthogonal_selection / b2nd_set_orthogonal_selection (unsorted and repeated
// indices, edge chunks and blocks) and b2nd_concatenate (aligned chunks copied as they are,
// unaligned ones through slices; in place and into a copy): items and frames must equal the
// reference's.
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
  printf(" frame len=%" PRId64 " hash=%016" PRIx64 "\n", len, rc2 == 0 ? fnv(cframe, len) : 0);
  if (rc2 == 0 && needs_free) free(cframe);
}

static b2nd_array_t *make(int8_t nd, const int64_t *shape, const int32_t *chunk, const int32_t *block, int ts, int seed) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = ts;
  cparams.nthreads = 1;
  blosc2_storage st = {.cparams = &cparams};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, nd, shape, chunk, block, NULL, 0, NULL, 0);
  int64_t n = ts;
  for (int i = 0; i < nd; i++) n *= shape[i];
  uint8_t *data = malloc(n + 1);
  for (int64_t i = 0; i < n; i++) data[i] = (uint8_t)(i * 7 + seed + (i >> 6));
  b2nd_array_t *a;
  b2nd_from_cbuffer(ctx, &a, data, n);
  free(data);
  b2nd_free_ctx(ctx);
  return a;
}

static void orthogonal(void) {
  int64_t shape[3] = {11, 9, 7};
  int32_t chunk[3] = {4, 5, 3}, block[3] = {3, 2, 2};
  b2nd_array_t *a = make(3, shape, chunk, block, 4, 1);
  int64_t s0[5] = {10, 0, 4, 4, 7}, s1[3] = {8, 1, 5}, s2[4] = {6, 0, 3, 2};
  int64_t *sel[3] = {s0, s1, s2};
  int64_t sizes[3] = {5, 3, 4};
  int64_t bshape[3] = {5, 3, 4};
  uint8_t buf[5 * 3 * 4 * 4];
  int rc = b2nd_get_orthogonal_selection(a, sel, sizes, buf, bshape, sizeof buf);
  printf("get rc=%d hash=%016" PRIx64 "\n", rc, fnv(buf, sizeof buf));
  for (int i = 0; i < (int)sizeof buf; i++) buf[i] = (uint8_t)(255 - i);
  rc = b2nd_set_orthogonal_selection(a, sel, sizes, buf, bshape, sizeof buf);
  show("set", rc, a);
  int64_t one[1] = {3};
  int64_t *sel1[3] = {one, s1, one};
  int64_t sizes1[3] = {1, 3, 1};
  int64_t bshape1[3] = {1, 3, 1};
  uint8_t b1[12];
  rc = b2nd_get_orthogonal_selection(a, sel1, sizes1, b1, bshape1, sizeof b1);
  printf("get small rc=%d hash=%016" PRIx64 "\n", rc, fnv(b1, sizeof b1));
  b2nd_free(a);
}

static void concat(void) {
  int64_t s1[2] = {8, 6}, s2[2] = {5, 6}, s3[2] = {8, 3};
  int32_t c[2] = {4, 3}, b[2] = {2, 3}, c2[2] = {3, 2}, b2[2] = {2, 1};
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 2;
  cparams.nthreads = 1;
  blosc2_storage st = {.cparams = &cparams};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, s1, c, b, NULL, 0, NULL, 0);

  b2nd_array_t *a = make(2, s1, c, b, 2, 3);
  b2nd_array_t *x = make(2, s2, c, b, 2, 5);
  b2nd_array_t *r;
  int rc = b2nd_concatenate(ctx, a, x, 0, true, &r);
  show("aligned axis 0 copy", rc, r);
  b2nd_free(r);
  b2nd_array_t *y = make(2, s3, c2, b2, 2, 7);
  rc = b2nd_concatenate(ctx, a, y, 1, true, &r);
  show("unaligned axis 1 copy", rc, r);
  b2nd_free(r);
  rc = b2nd_concatenate(ctx, a, x, 0, false, &r);
  show("aligned axis 0 in place", rc, a);
  printf("  in place: same array %d\n", r == a);
  b2nd_free(a);
  b2nd_free(x);
  b2nd_free(y);
  b2nd_free_ctx(ctx);
}

int main(void) {
  blosc2_init();
  orthogonal();
  concat();
  blosc2_destroy();
  return 0;
}
