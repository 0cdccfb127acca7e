// c_tests: compare-output
// The filter plugins the reference registers at start-up (bytedelta 34/35, int_trunc 36):
// same chunk bytes (BloscLZ), same decoded data and same error codes as the reference, for
// every integer width, precisions kept or reduced, refused precisions and typesizes.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"
#include "blosc2/filters-registry.h"

static uint32_t fnv(const unsigned char *p, int n) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void run(uint8_t filter, int8_t meta, int typesize, int second, const unsigned char *src, int n) {
  static unsigned char chunk[70000], back[70000];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  cp.filters[4] = filter;
  cp.filters_meta[4] = (uint8_t)meta;
  cp.filters[5] = (uint8_t)second;
  cp.blocksize = 16384;
  blosc2_context *c = blosc2_create_cctx(cp);
  int cb = blosc2_compress_ctx(c, src, n, chunk, sizeof(chunk));
  blosc2_free_ctx(c);
  printf("filter %d meta %4d ts %d then %d: compress %d", filter, meta, typesize, second, cb);
  if (cb > 0) {
    blosc2_context *d = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
    memset(back, 0xA5, sizeof(back));
    int db = blosc2_decompress_ctx(d, chunk, cb, back, n);
    blosc2_free_ctx(d);
    printf(" chunk %08x decompress %d data %08x same-as-source %d", fnv(chunk, cb), db, fnv(back, n),
           db == n && memcmp(back, src, n) == 0);
  }
  printf("\n");
}

/* In a super-chunk, bytedelta with meta 0 takes the super-chunk's typesize. */
static void in_schunk(const unsigned char *src, int n) {
  for (int ts = 1; ts <= 8; ts *= 2) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = ts;
    cp.filters[4] = BLOSC_SHUFFLE;
    cp.filters[5] = BLOSC_FILTER_BYTEDELTA;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    int64_t na = blosc2_schunk_append_buffer(sc, src, n);
    static unsigned char back[70000];
    int db = blosc2_schunk_decompress_chunk(sc, 0, back, n);
    uint8_t *frame = NULL;
    bool needs_free = false;
    int64_t flen = blosc2_schunk_to_buffer(sc, &frame, &needs_free);
    printf("schunk bytedelta meta 0 ts %d: append %lld decompress %d same-as-source %d frame %lld %08x\n", ts,
           (long long)na, db, db == n && memcmp(back, src, n) == 0, (long long)flen, frame ? fnv(frame, (int)flen) : 0);
    if (needs_free) free(frame);
    blosc2_schunk_free(sc);
  }
}

int main(void) {
  blosc2_init();
  enum { N = 65536 };  /* whole items: the reference leaves a partial last item unwritten */
  static unsigned char src[N];
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < N; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    src[i] = (unsigned char)((i / 7) + (x & 3));
  }
  const int8_t metas[] = {1, 3, 7, 8, 12, 16, 31, 32, 40, 63, 64, 65, -1, -4, -7, -8, -15, -16, -31, -32, -63, -64, 0};
  for (int ts = 1; ts <= 8; ts *= 2)
    for (size_t m = 0; m < sizeof(metas); m++) {
      run(BLOSC_FILTER_INT_TRUNC, metas[m], ts, BLOSC_NOFILTER, src, N);
      run(BLOSC_FILTER_INT_TRUNC, metas[m], ts, BLOSC_SHUFFLE, src, N);
    }
  run(BLOSC_FILTER_INT_TRUNC, 4, 3, BLOSC_NOFILTER, src, N);
  run(BLOSC_FILTER_INT_TRUNC, 4, 16, BLOSC_SHUFFLE, src, N);
  for (int ts = 1; ts <= 16; ts *= 2) {
    run(BLOSC_FILTER_BYTEDELTA, (int8_t)ts, ts, BLOSC_NOFILTER, src, N);
    run(BLOSC_FILTER_BYTEDELTA, 0, ts, BLOSC_SHUFFLE, src, N);
    run(BLOSC_FILTER_BYTEDELTA_BUGGY, (int8_t)ts, ts, BLOSC_NOFILTER, src, N);
  }
  static uint32_t ramp[N / 4];
  for (int i = 0; i < N / 4; i++) ramp[i] = (uint32_t)i * 3 + (i % 5);
  in_schunk((const unsigned char *)ramp, N);
  blosc2_destroy();
  return 0;
}
