// c_tests: compare-output
// The n-dimensional plugins (NDLZ, ZFP in its three modes, ndcell, ndmean) used the way
// python-blosc2 uses them: through b2nd arrays, whose "b2nd" metalayer is added after the
// super-chunk and its contexts exist. Frames and decoded data must equal the reference's.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"
#include "b2nd.h"
#include "blosc2/codecs-registry.h"
#include "blosc2/filters-registry.h"

static uint64_t fnv(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ULL; }
  return h;
}

int main(void) {
  blosc2_init();
  const int64_t shape[2] = {200, 150};
  const int32_t chunk[2] = {64, 64}, block[2] = {16, 32};
  struct { const char *name; int ts; int codec; int meta; int filter; int fmeta; } cfgs[] = {
    {"ndlz", 1, BLOSC_CODEC_NDLZ, 4, 0, 0},
    {"ndlz", 1, BLOSC_CODEC_NDLZ, 8, 0, 0},
    {"zfp_acc", 4, BLOSC_CODEC_ZFP_FIXED_ACCURACY, (uint8_t)-3, 0, 0},
    {"zfp_acc", 8, BLOSC_CODEC_ZFP_FIXED_ACCURACY, (uint8_t)-6, 0, 0},
    {"zfp_prec", 4, BLOSC_CODEC_ZFP_FIXED_PRECISION, 16, 0, 0},
    {"zfp_prec", 8, BLOSC_CODEC_ZFP_FIXED_PRECISION, 24, 0, 0},
    {"zfp_rate", 4, BLOSC_CODEC_ZFP_FIXED_RATE, 30, 0, 0},
    {"zfp_rate", 8, BLOSC_CODEC_ZFP_FIXED_RATE, 50, 0, 0},
    {"ndcell", 4, BLOSC_LZ4, 5, BLOSC_FILTER_NDCELL, 4},
    {"ndcell", 2, BLOSC_ZSTD, 5, BLOSC_FILTER_NDCELL, 3},
    {"ndmean", 4, BLOSC_LZ4, 5, BLOSC_FILTER_NDMEAN, 4},
    {"ndmean", 8, BLOSC_ZSTD, 5, BLOSC_FILTER_NDMEAN, 2},
  };
  int64_t n = shape[0] * shape[1];
  for (size_t c = 0; c < sizeof cfgs / sizeof *cfgs; c++) {
    int ts = cfgs[c].ts;
    unsigned char *data = malloc(n * ts), *back = malloc(n * ts);
    for (int64_t i = 0; i < n; i++) {
      double v = sin((i / shape[1]) * 0.05) * cos((i % shape[1]) * 0.07) * 100.0;
      if (ts == 8) ((double *)data)[i] = v;
      else if (ts == 4) ((float *)data)[i] = (float)v;
      else if (ts == 2) ((int16_t *)data)[i] = (int16_t)v;
      else data[i] = (unsigned char)(((i / shape[1]) / 8 + (i % shape[1]) / 8) & 0xff);
    }
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = ts; cp.nthreads = 1;
    cp.compcode = (uint8_t)cfgs[c].codec;
    cp.compcode_meta = (uint8_t)(cfgs[c].filter ? 0 : cfgs[c].meta);
    cp.clevel = cfgs[c].filter ? (uint8_t)cfgs[c].meta : 5;
    for (int f = 0; f < BLOSC2_MAX_FILTERS; f++) { cp.filters[f] = 0; cp.filters_meta[f] = 0; }
    if (cfgs[c].filter) {
      cp.filters[BLOSC2_MAX_FILTERS - 2] = (uint8_t)cfgs[c].filter;
      cp.filters_meta[BLOSC2_MAX_FILTERS - 2] = (uint8_t)cfgs[c].fmeta;
      cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
    }
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunk, block, NULL, 0, NULL, 0);
    b2nd_array_t *arr = NULL;
    int rc = b2nd_from_cbuffer(ctx, &arr, data, n * ts);
    printf("%s ts%d meta %d: from_cbuffer %d", cfgs[c].name, ts, cfgs[c].filter ? cfgs[c].fmeta : cfgs[c].meta, rc);
    if (rc == 0) {
      uint8_t *frame = NULL;
      int64_t flen = 0;
      bool needs_free = false;
      int fr = b2nd_to_cframe(arr, &frame, &flen, &needs_free);
      printf(", cbytes %lld, frame %d/%lld %016llx", (long long)arr->sc->cbytes, fr, (long long)flen,
             (unsigned long long)fnv(frame, (size_t)flen));
      memset(back, 0, n * ts);
      int dr = b2nd_to_cbuffer(arr, back, n * ts);
      printf(", to_cbuffer %d %016llx", dr, (unsigned long long)fnv(back, n * ts));
      int64_t start[2] = {30, 40}, stop[2] = {90, 110}, bshape[2] = {60, 70};
      unsigned char *sl = calloc(60 * 70, ts);
      int sr = b2nd_get_slice_cbuffer(arr, start, stop, sl, bshape, 60 * 70 * ts);
      printf(", slice %d %016llx", sr, (unsigned long long)fnv(sl, 60 * 70 * ts));
      free(sl);
      if (needs_free) free(frame);
      b2nd_free(arr);
    }
    printf("\n");
    b2nd_free_ctx(ctx);
    free(data); free(back);
  }
  blosc2_destroy();
  return 0;
}
