// c_tests: differential
// The global API may be called from several threads at once, and many contexts may be used
// concurrently; every result must round-trip.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

enum { N = 300000, ROUNDS = 30, THREADS = 6 };

static void *global_worker(void *arg) {
  long id = (long)arg;
  unsigned char *src = malloc(N), *dst = malloc(N + 64), *back = malloc(N);
  for (int i = 0; i < N; i++) src[i] = (unsigned char)((i / 7 + id) & 0xff);
  long fails = 0;
  for (int r = 0; r < ROUNDS; r++) {
    int c = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, N, dst, N + 64);
    int d = blosc2_decompress(dst, c, back, N);
    if (c <= 0 || d != N || memcmp(src, back, N) != 0) fails++;
  }
  free(src); free(dst); free(back);
  return (void *)fails;
}

static void *ctx_worker(void *arg) {
  long id = (long)arg;
  unsigned char *src = malloc(N), *dst = malloc(N + 64), *back = malloc(N);
  for (int i = 0; i < N; i++) src[i] = (unsigned char)((i * 3 + id) & 0xff);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 2;
  cp.nthreads = 2;
  cp.compcode = (uint8_t)(id % 2 ? BLOSC_LZ4 : BLOSC_ZSTD);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_context *cc = blosc2_create_cctx(cp), *dc = blosc2_create_dctx(dp);
  long fails = 0;
  for (int r = 0; r < ROUNDS; r++) {
    int c = blosc2_compress_ctx(cc, src, N, dst, N + 64);
    int d = blosc2_decompress_ctx(dc, dst, c, back, N);
    if (c <= 0 || d != N || memcmp(src, back, N) != 0) fails++;
  }
  blosc2_free_ctx(cc); blosc2_free_ctx(dc);
  free(src); free(dst); free(back);
  return (void *)fails;
}

int main(void) {
  blosc2_init();
  blosc2_set_nthreads(2);
  pthread_t t[2 * THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, global_worker, (void *)i);
  for (long i = 0; i < THREADS; i++) pthread_create(&t[THREADS + i], NULL, ctx_worker, (void *)i);
  long fails = 0;
  for (int i = 0; i < 2 * THREADS; i++) {
    void *r;
    pthread_join(t[i], &r);
    fails += (long)r;
  }
  blosc2_destroy();
  if (fails) { fprintf(stderr, "%ld failed round trips\n", fails); return 1; }
  printf("threads ok\n");
  return 0;
}
