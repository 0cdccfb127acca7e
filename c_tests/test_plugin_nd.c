// c_tests: compare-output
// The n-dimensional plugins the reference registers at start-up, through the super-chunk
// API with a "b2nd" metalayer written by hand (msgpack, as b2nd_serialize_meta writes it):
// ndcell (filter 32), ndmean (filter 33), NDLZ (codec 32) and ZFP (codecs 33-35). Prints
// each chunk's size and a hash of its bytes and of the decoded data, so both libraries must
// write identical chunks and decode them identically; then the error codes for bad meta
// values, a missing metalayer, and wrong dimensions or typesizes.
#include <stdio.h>
#include <string.h>
#include <math.h>
#include "blosc2.h"

static uint32_t fnv(const uint8_t *p, int64_t n) {
  uint32_t h = 2166136261u;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

static uint8_t *be(uint8_t *p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; i--) *p++ = (uint8_t)(v >> (8 * i));
  return p;
}

/* The b2nd metalayer: [version, ndim, shape(int64s), chunkshape(int32s), blockshape(int32s),
   dtype format, dtype(str32)]. */
static int b2nd_meta(uint8_t *buf, int nd, const int64_t *shape, const int32_t *chunk, const int32_t *block) {
  uint8_t *p = buf;
  *p++ = 0x97; *p++ = 0; *p++ = (uint8_t)nd;
  *p++ = (uint8_t)(0x90 + nd);
  for (int i = 0; i < nd; i++) { *p++ = 0xd3; p = be(p, (uint64_t)shape[i], 8); }
  *p++ = (uint8_t)(0x90 + nd);
  for (int i = 0; i < nd; i++) { *p++ = 0xd2; p = be(p, (uint32_t)chunk[i], 4); }
  *p++ = (uint8_t)(0x90 + nd);
  for (int i = 0; i < nd; i++) { *p++ = 0xd2; p = be(p, (uint32_t)block[i], 4); }
  *p++ = 0; *p++ = 0xdb; p = be(p, 3, 4); memcpy(p, "|u1", 3); p += 3;
  return (int)(p - buf);
}

typedef struct {
  const char *what;
  int nd; int64_t shape[4]; int32_t chunk[4]; int32_t block[4];
  int typesize; int compcode; int compcode_meta; int filter; int filter_meta; int with_meta;
} tcase;

static void fill(uint8_t *buf, int64_t nitems, int typesize, int seed) {
  for (int64_t i = 0; i < nitems; i++) {
    double v = sin((double)i * 0.37 + seed) * 50.0 + (double)((i / 7) % 5);
    if (typesize == 4) { float f = (float)v; memcpy(buf + i * 4, &f, 4); }
    else if (typesize == 8) memcpy(buf + i * 8, &v, 8);
    else if (typesize == 1) buf[i] = ((i / 3) % 4 == 0) ? 7 : (uint8_t)((int)(v + 60) / 8);
    else { int16_t s = (int16_t)v; memcpy(buf + i * 2, &s, 2); }
  }
}

static void run(const tcase *t) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = t->typesize; cp.compcode = (uint8_t)t->compcode; cp.compcode_meta = (uint8_t)t->compcode_meta;
  cp.clevel = 5; cp.nthreads = 1;
  memset(cp.filters, 0, sizeof(cp.filters)); memset(cp.filters_meta, 0, sizeof(cp.filters_meta));
  cp.filters[5] = (uint8_t)t->filter; cp.filters_meta[5] = (uint8_t)t->filter_meta;
  int64_t nitems = 1, bitems = 1;
  for (int i = 0; i < t->nd; i++) { nitems *= t->chunk[i]; bitems *= t->block[i]; }
  cp.blocksize = (int32_t)(bitems * t->typesize);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS; dp.nthreads = 1;
  blosc2_storage st = {.contiguous = false, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *s = blosc2_schunk_new(&st);
  if (t->with_meta) {
    uint8_t meta[200];
    int n = b2nd_meta(meta, t->nd, t->shape, t->chunk, t->block);
    blosc2_meta_add(s, "b2nd", meta, n);
  }
  int32_t nbytes = (int32_t)(nitems * t->typesize);
  uint8_t *data = malloc(nbytes), *back = malloc(nbytes);
  printf("%s:", t->what);
  for (int seed = 0; seed < 2; seed++) {
    fill(data, nitems, t->typesize, seed);
    int64_t rc = blosc2_schunk_append_buffer(s, data, nbytes);
    if (rc < 0) { printf(" append %lld", (long long)rc); continue; }
    uint8_t *chunk; bool needs_free;
    int cb = blosc2_schunk_get_chunk(s, rc - 1, &chunk, &needs_free);
    printf(" [cbytes %d hash %08x", cb, cb > 0 ? fnv(chunk, cb) : 0);
    if (needs_free) free(chunk);
    int d = blosc2_schunk_decompress_chunk(s, rc - 1, back, nbytes);
    printf(" dec %d hash %08x same %d]", d, d > 0 ? fnv(back, d) : 0, d == nbytes && memcmp(back, data, nbytes) == 0);
  }
  printf("\n");
  free(data); free(back);
  blosc2_schunk_free(s);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  blosc2_init();
  tcase cases[] = {
    {"ndcell 2-D i16 meta 3", 2, {50, 75}, {26, 39}, {13, 13}, 2, BLOSC_LZ4, 0, 32, 3, 1},
    {"ndcell 3-D f32 meta 2", 3, {20, 21, 22}, {10, 14, 15}, {5, 7, 5}, 4, BLOSC_ZSTD, 1, 32, 2, 1},
    {"ndcell 4-D f64 meta 2", 4, {9, 10, 11, 12}, {6, 6, 6, 8}, {3, 6, 3, 4}, 8, BLOSC_BLOSCLZ, 0, 32, 2, 1},
    {"ndmean 2-D f32 meta 3", 2, {50, 75}, {26, 39}, {13, 13}, 4, BLOSC_LZ4, 0, 33, 3, 1},
    {"ndmean 3-D f64 meta 2", 3, {20, 21, 22}, {10, 14, 15}, {5, 7, 5}, 8, BLOSC_LZ4, 0, 33, 2, 1},
    {"ndlz4 2-D u8", 2, {300, 200}, {150, 99}, {50, 33}, 1, 32, 4, 0, 0, 1},
    {"ndlz8 2-D u8", 2, {300, 200}, {150, 99}, {50, 33}, 1, 32, 8, 0, 0, 1},
    {"ndlz4 shuffled", 2, {64, 64}, {64, 64}, {32, 32}, 1, 32, 4, 1, 0, 1},
    {"zfp_acc 2-D f32 meta -3", 2, {100, 75}, {50, 40}, {25, 13}, 4, 33, (uint8_t)-3, 0, 0, 1},
    {"zfp_acc 3-D f64 meta 0", 3, {20, 21, 22}, {10, 14, 15}, {5, 7, 5}, 8, 33, 0, 0, 0, 1},
    {"zfp_prec 1-D f32 meta 20", 1, {1000}, {300}, {100}, 4, 34, 20, 0, 0, 1},
    {"zfp_prec 4-D f64 meta 30", 4, {9, 10, 11, 12}, {8, 10, 5, 8}, {4, 5, 5, 4}, 8, 34, 30, 0, 0, 1},
    {"zfp_rate 2-D f32 meta 50", 2, {100, 75}, {50, 40}, {25, 13}, 4, 35, 50, 0, 0, 1},
    {"zfp_rate 3-D f64 meta 100", 3, {20, 21, 22}, {10, 14, 15}, {5, 7, 5}, 8, 35, 100, 0, 0, 1},
    /* Bad input. */
    {"ndcell meta 0", 2, {50, 75}, {26, 39}, {13, 13}, 2, BLOSC_LZ4, 0, 32, 0, 1},
    {"ndcell cell > block", 2, {50, 75}, {26, 39}, {13, 13}, 2, BLOSC_LZ4, 0, 32, 14, 1},
    {"ndcell no b2nd", 2, {50, 75}, {26, 39}, {13, 13}, 2, BLOSC_LZ4, 0, 32, 2, 0},
    {"ndmean on i16", 2, {50, 75}, {26, 39}, {13, 13}, 2, BLOSC_LZ4, 0, 33, 2, 1},
    {"ndmean meta 200", 2, {50, 75}, {26, 39}, {13, 13}, 4, BLOSC_LZ4, 0, 33, 200, 1},
    {"ndlz meta 5", 2, {64, 64}, {64, 64}, {32, 32}, 1, 32, 5, 0, 0, 1},
    {"ndlz 3-D", 3, {16, 16, 16}, {8, 8, 8}, {4, 8, 8}, 1, 32, 4, 0, 0, 1},
    {"ndlz typesize 2", 2, {64, 64}, {64, 64}, {32, 32}, 2, 32, 4, 0, 0, 1},
    {"ndlz no b2nd", 2, {64, 64}, {64, 64}, {32, 32}, 1, 32, 8, 0, 0, 0},
    {"zfp_acc typesize 2", 2, {64, 64}, {32, 32}, {16, 16}, 2, 33, 0, 0, 0, 1},
    {"zfp_prec block < 4", 2, {64, 64}, {32, 32}, {2, 16}, 4, 34, 10, 0, 0, 1},
    {"zfp_rate no b2nd", 2, {64, 64}, {32, 32}, {16, 16}, 4, 35, 50, 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) run(&cases[i]);
  blosc2_destroy();
  return 0;
}
