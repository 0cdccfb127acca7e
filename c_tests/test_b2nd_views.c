// c_tests: compare-output
// Views: b2nd_squeeze, b2nd_squeeze_index and b2nd_expand_dims give arrays of another shape
// over the same items; reads through a view, writes through a view seen by the viewed array,
// slices, print_meta and the error codes for bad indexes must equal the reference's.
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
  printf("%s rc=%d", what, rc);
  if (rc < 0) { printf("\n"); return; }
  printf(" ndim=%d shape", a->ndim);
  for (int i = 0; i < a->ndim; i++) printf(" %" PRId64 "/%d/%d", a->shape[i], a->chunkshape[i], a->blockshape[i]);
  int64_t n = a->nitems * a->sc->typesize;
  uint8_t *buf = calloc(1, n + 1);
  int rc2 = b2nd_to_cbuffer(a, buf, n);
  printf(" nitems=%" PRId64 " extchunknitems=%" PRId64 " items rc=%d hash=%016" PRIx64 "\n", a->nitems,
         a->extchunknitems, rc2, fnv(buf, n));
  free(buf);
}

static b2nd_array_t *make(int8_t nd, const int64_t *shape, const int32_t *chunk, const int32_t *block) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  cparams.nthreads = 1;
  blosc2_storage st = {.cparams = &cparams};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, nd, shape, chunk, block, "<i4", 0, NULL, 0);
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= shape[i];
  int32_t *data = malloc(n * 4 + 4);
  for (int64_t i = 0; i < n; i++) data[i] = (int32_t)(i * 5 + 3);
  b2nd_array_t *a;
  int rc = b2nd_from_cbuffer(ctx, &a, data, n * 4);
  free(data);
  b2nd_free_ctx(ctx);
  show("array", rc, a);
  return a;
}

int main(void) {
  blosc2_init();
  int64_t s[4] = {1, 6, 1, 4};
  int32_t c[4] = {1, 4, 1, 3}, b[4] = {1, 2, 1, 2};
  b2nd_array_t *a = make(4, s, c, b);

  b2nd_array_t *v;
  int rc = b2nd_squeeze(a, &v);
  show("squeeze", rc, v);
  b2nd_print_meta(v);
  fflush(stdout);
  int32_t patch[6] = {-1, -2, -3, -4, -5, -6};
  int64_t start[2] = {2, 1}, stop[2] = {5, 3}, pshape[2] = {3, 2};
  rc = b2nd_set_slice_cbuffer(patch, pshape, sizeof patch, start, stop, v);
  printf("write through view rc=%d\n", rc);
  show("  viewed array", 0, a);
  show("  view", 0, v);
  int32_t win[6];
  rc = b2nd_get_slice_cbuffer(v, start, stop, win, pshape, sizeof win);
  printf("  view slice rc=%d: %d %d %d %d %d %d\n", rc, win[0], win[1], win[2], win[3], win[4], win[5]);
  uint8_t *cframe;
  int64_t len;
  bool needs_free;
  rc = b2nd_to_cframe(v, &cframe, &len, &needs_free);
  printf("  view cframe rc=%d len=%" PRId64 " hash=%016" PRIx64 "\n", rc, len, fnv(cframe, len));
  if (needs_free) free(cframe);
  b2nd_free(v);

  bool idx[4] = {true, false, false, false};
  rc = b2nd_squeeze_index(a, &v, idx);
  show("squeeze_index first", rc, v);
  b2nd_free(v);
  bool bad[4] = {false, true, false, false};
  v = NULL;
  rc = b2nd_squeeze_index(a, &v, bad);
  printf("squeeze_index of a longer dim rc=%d\n", rc);

  int64_t s2[2] = {5, 7};
  int32_t c2[2] = {3, 4}, b2[2] = {2, 3};
  b2nd_array_t *m = make(2, s2, c2, b2);
  bool axis[4] = {true, false, true, false};
  rc = b2nd_expand_dims(m, &v, axis, 4);
  show("expand_dims", rc, v);
  b2nd_print_meta(v);
  fflush(stdout);
  int64_t st4[4] = {0, 1, 0, 2}, sp4[4] = {1, 4, 1, 6}, bs4[4] = {1, 3, 1, 4};
  int32_t w4[12];
  rc = b2nd_get_slice_cbuffer(v, st4, sp4, w4, bs4, sizeof w4);
  printf("  expanded slice rc=%d hash=%016" PRIx64 "\n", rc, fnv((uint8_t *)w4, sizeof w4));
  b2nd_array_t *back;
  rc = b2nd_squeeze(v, &back);
  show("squeeze of expanded", rc, back);
  b2nd_free(back);
  b2nd_free(v);

  b2nd_free(m);
  b2nd_free(a);
  blosc2_destroy();
  return 0;
}
