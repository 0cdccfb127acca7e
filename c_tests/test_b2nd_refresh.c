// c_tests: compare-output
// Two handles on one b2nd file: a writer grows and shrinks the array, a reader follows with
// b2nd_refresh (and implicitly on reads), as the reference does for single-writer/many-reader
// use. Also b2nd_print_meta of a 1-dim and a 0-dim array.
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

static void show(const char *what, const b2nd_array_t *a) {
  int64_t n = a->nitems * a->sc->typesize;
  uint8_t *buf = calloc(1, n + 1);
  int rc = b2nd_to_cbuffer(a, buf, n);
  printf("%s: shape %" PRId64 " x %" PRId64 " rc=%d hash=%016" PRIx64 "\n", what, a->shape[0], a->shape[1], rc,
         fnv(buf, n));
  free(buf);
}

int main(void) {
  blosc2_init();
  const char *path = "b2nd_refresh.b2nd";
  blosc2_remove_urlpath(path);
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  cparams.nthreads = 1;
  blosc2_storage st = {.cparams = &cparams, .contiguous = true, .urlpath = (char *)path};
  int64_t shape[2] = {6, 5};
  int32_t chunk[2] = {4, 5}, block[2] = {2, 5};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunk, block, NULL, 0, NULL, 0);
  int32_t data[100];
  for (int i = 0; i < 100; i++) data[i] = i * 3 + 1;
  b2nd_array_t *w;
  int rc = b2nd_from_cbuffer(ctx, &w, data, 30 * 4);
  printf("writer create rc=%d\n", rc);
  b2nd_array_t *r;
  rc = b2nd_open(path, &r);
  printf("reader open rc=%d\n", rc);
  show("reader", r);

  rc = b2nd_append(w, data + 30, 10 * 4, 0);
  printf("writer append rc=%d\n", rc);
  rc = b2nd_refresh(r);
  printf("reader refresh rc=%d\n", rc);
  show("reader", r);
  rc = b2nd_refresh(r);
  printf("reader refresh again rc=%d\n", rc);

  rc = b2nd_append(w, data + 40, 15 * 4, 0);
  printf("writer append rc=%d\n", rc);
  show("reader (implicit)", r);

  int64_t smaller[2] = {3, 5};
  rc = b2nd_resize(w, smaller, NULL);
  printf("writer shrink rc=%d\n", rc);
  show("reader (implicit)", r);
  show("writer", w);

  b2nd_print_meta(r);
  fflush(stdout);
  b2nd_free(r);
  b2nd_free(w);
  b2nd_free_ctx(ctx);
  blosc2_remove_urlpath(path);

  blosc2_storage mem = {.cparams = &cparams};
  int64_t s1[1] = {7};
  int32_t c1[1] = {3}, b1[1] = {2};
  ctx = b2nd_create_ctx(&mem, 1, s1, c1, b1, "<i4", 0, NULL, 0);
  rc = b2nd_zeros(ctx, &w);
  b2nd_print_meta(w);
  fflush(stdout);
  printf("refresh in memory rc=%d\n", b2nd_refresh(w));
  b2nd_free(w);
  b2nd_free_ctx(ctx);
  blosc2_destroy();
  return 0;
}
