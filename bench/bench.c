/* Compression benchmark, compiled once against the public headers and run with either
 * libblosc2 on LD_LIBRARY_PATH (ours or the reference). Prints one line per configuration:
 *   dataset codec filter clevel nthreads nbytes cbytes cspeed_GBps dspeed_GBps
 * plus a memcpy line (the ceiling). Usage: bench [seconds_per_measure] [rainfall.bin] [codec]
 *
 * pair mode: bench pair OURS.so REF.so [seconds_per_measure] [rainfall.bin] [codec|all]
 * [ours-first|ref-first] loads both libraries in this process (dlopen) and measures every
 * configuration with each in turn; the same lines, each prefixed with "ours" or "ref"
 * (scripts/bench.sh's codec matrix).
 *
 * filters mode: bench filters OURS.so REF.so [seconds_per_measure] [rainfall.bin] [ref-first]
 * times the filter pipelines outside the matrix (delta, precision truncation, bytedelta,
 * integer truncation) with both libraries in this process, in the pair mode's lines.
 *
 * typesizes mode: bench typesizes OURS.so REF.so [seconds_per_measure] [ref-first] times the
 * type sizes the matrix's data sets leave out (1, 2 and 16 bytes), every codec and filter of
 * the matrix at clevel 5, in the pair mode's lines.
 *
 * plugins mode: bench plugins [seconds_per_measure [name]] times NDLZ, ZFP (three modes), ndcell and
 * ndmean on b2nd arrays in memory (b2nd_from_cbuffer compresses, b2nd_to_cbuffer decompresses):
 *   plugin config meta nbytes cbytes cspeed_GBps dspeed_GBps
 *
 * b2nd mode: bench b2nd [seconds_per_measure] [workdir] times b2nd_get_slice_cbuffer and
 * b2nd_set_slice_cbuffer on 2-D and 3-D arrays (a small slice inside one block, one whole
 * chunk, a chunk-sized slice across chunk edges) in memory and in a frame file:
 *   b2nd array storage slice op nbytes seconds_per_call GBps
 *
 * lazy mode: bench lazy [seconds_per_measure] [workdir] times lazy chunks of a contiguous
 * frame file and of a sparse frame read through a caller's context (a whole chunk with
 * blosc2_decompress_ctx; 16 items from each of 64 blocks with blosc2_getitem_ctx), in the
 * b2nd lines' format.
 *
 * one mode: bench one RAINFALL.bin DATASET CODEC FILTER CLEVEL NTHREADS ROUNDS LIB.so... times one
 * configuration of the matrix with each library (up to 8, all loaded in this process) in
 * alternating rounds; see bench_one.
 *
 * quick mode: bench quick [seconds_per_measure] (scripts/bench-quick.sh, a minute or two) times
 * the exported shuffle kernels (32 KiB and 256 KiB, type sizes 2/4/8/16, buffers 16 bytes off
 * a cache line as malloc returns them), a 4 MiB memcpy, and a few configurations of the
 * matrix (one and two threads), and two with a context made and freed per call, one line each:
 *   quick item GBps
 */
#define _GNU_SOURCE /* RTLD_DEEPBIND, dladdr */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "side_by_side.h"
#include "blosc2.h"
#include "b2nd.h"
#include "blosc2/codecs-registry.h"
#include "blosc2/filters-registry.h"

/* Bytes of each of the matrix's generated data sets (and its output capacity). */
enum { N = 4 << 20 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct { const char *name; unsigned char *data; int32_t n; int32_t typesize; } dataset;

static uint64_t rng = 88172645463325252ULL;
static uint64_t xs(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

static double measure(double budget, int (*fn)(void *), void *arg, int *rc) {
  /* Best of several timed rounds within the budget. */
  double best = 1e30, start = now();
  int rounds = 0;
  do {
    double t0 = now();
    *rc = fn(arg);
    double dt = now() - t0;
    if (dt < best) best = dt;
    rounds++;
  } while (now() - start < budget || rounds < 3);
  return best;
}

/* Best of several timed calls for each of n jobs (one per library), the jobs taking turns
   in slices of about budget / 8, each slice a run of calls of one job: every job sees the
   same spells of a noisy machine (a slow spell of a few seconds no longer falls on one
   library only), and each slice starts with that library's code and data warm. At least
   three calls each; about n * budget in all. */
static void measure_turns(double budget, int (*fn)(void *), void **args, int n, double *best, int *rc) {
  for (int k = 0; k < n; k++) best[k] = 1e30;
  double slice = budget / 8, start = now();
  int rounds = 0;
  do {
    for (int k = 0; k < n; k++) {
      double s0 = now();
      do {
        double t0 = now();
        rc[k] = fn(args[k]);
        double dt = now() - t0;
        if (dt < best[k]) best[k] = dt;
      } while (now() - s0 < slice);
    }
    rounds++;
  } while (now() - start < budget * n || rounds < 3);
}

/* The calls the codec matrix makes, from the linked library or from one opened with dlopen
 * (pair mode: both libraries in one process, measured in turn for every configuration). */
typedef struct {
  const char *label;
  void (*init)(void);
  void (*destroy)(void);
  blosc2_context *(*create_cctx)(blosc2_cparams);
  blosc2_context *(*create_dctx)(blosc2_dparams);
  void (*free_ctx)(blosc2_context *);
  int (*compress_ctx)(blosc2_context *, const void *, int32_t, void *, int32_t);
  int (*decompress_ctx)(blosc2_context *, const void *, int32_t, void *, int32_t);
} api;

typedef struct { blosc2_context *ctx; const void *src; int32_t n; void *dst; int32_t dn; const api *lib; } job;
/* The library this program is linked with. */
static const api linked = {"", blosc2_init, blosc2_destroy, blosc2_create_cctx, blosc2_create_dctx,
                           blosc2_free_ctx, blosc2_compress_ctx, blosc2_decompress_ctx};

static int do_c(void *a) { job *j = a; return j->lib->compress_ctx(j->ctx, j->src, j->n, j->dst, j->dn); }
static int do_d(void *a) { job *j = a; return j->lib->decompress_ctx(j->ctx, j->src, j->n, j->dst, j->dn); }
static int do_m(void *a) { job *j = a; memcpy(j->dst, j->src, j->n); return j->n; }

typedef struct {
  b2nd_array_t *a;
  int64_t start[3], stop[3], shape[3];
  void *buf;
  int64_t bufsize;
} slice_job;
static int do_get(void *p) {
  slice_job *j = p;
  return b2nd_get_slice_cbuffer(j->a, j->start, j->stop, j->buf, j->shape, j->bufsize);
}
static int do_set(void *p) {
  slice_job *j = p;
  return b2nd_set_slice_cbuffer(j->buf, j->shape, j->bufsize, j->start, j->stop, j->a);
}

/* One array (2-D float64 or 3-D float32, smooth data), in memory or in a frame file. */
static int bench_b2nd(double budget, const char *dir) {
  struct { const char *name; int8_t ndim; int64_t shape[3]; int32_t chunk[3], block[3]; int32_t typesize; } arrays[] = {
    {"2d-f64", 2, {1536, 1536, 1}, {256, 256, 1}, {32, 32, 1}, 8},
    {"3d-f32", 3, {160, 160, 160}, {48, 48, 48}, {12, 12, 12}, 4},
  };
  for (int a = 0; a < 2; a++) {
    int8_t nd = arrays[a].ndim;
    int64_t nitems = 1;
    for (int i = 0; i < nd; i++) nitems *= arrays[a].shape[i];
    int32_t ts = arrays[a].typesize;
    unsigned char *data = malloc(nitems * ts);
    for (int64_t i = 0; i < nitems; i++) {
      double v = sin(i * 1e-4) * 1000.0;
      if (ts == 8) ((double *)data)[i] = v; else ((float *)data)[i] = (float)v;
    }
    for (int st = 0; st < 2; st++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/bench-%s.b2nd", dir, arrays[a].name);
      remove(path);
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = BLOSC_LZ4; cp.clevel = 5; cp.typesize = ts; cp.nthreads = 1;
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.nthreads = 1;
      blosc2_storage storage = {.contiguous = true, .urlpath = st ? path : NULL, .cparams = &cp, .dparams = &dp};
      b2nd_context_t *ctx = b2nd_create_ctx(&storage, nd, arrays[a].shape, arrays[a].chunk, arrays[a].block,
                                            ts == 8 ? "<f8" : "<f4", DTYPE_NUMPY_FORMAT, NULL, 0);
      b2nd_array_t *arr = NULL;
      if (ctx == NULL || b2nd_from_cbuffer(ctx, &arr, data, nitems * ts) < 0) {
        fprintf(stderr, "error: cannot create %s\n", arrays[a].name);
        return 1;
      }
      /* small: 8 items a side inside one block; chunk: the second chunk along each axis;
         across: a chunk-sized slice centred on a chunk corner. */
      const char *kinds[] = {"small", "chunk", "across"};
      for (int k = 0; k < 3; k++) {
        slice_job j = {arr, {0}, {0}, {0}, NULL, ts};
        for (int i = 0; i < nd; i++) {
          int64_t c = arrays[a].chunk[i], b = arrays[a].block[i];
          int64_t start = k == 0 ? c + b + 2 : k == 1 ? c : c + c / 2;
          int64_t len = k == 0 ? 8 : c;
          j.start[i] = start; j.stop[i] = start + len; j.shape[i] = len;
          j.bufsize *= len;
        }
        j.buf = malloc(j.bufsize);
        const char *ops[] = {"get", "set"};
        for (int o = 0; o < 2; o++) {
          int rc;
          double t = measure(budget, o ? do_set : do_get, &j, &rc);
          if (rc < 0) {
            fprintf(stderr, "error: %s %s %s %s: %d\n", arrays[a].name, st ? "file" : "memory", kinds[k], ops[o], rc);
            return 1;
          }
          printf("b2nd %s %s %s %s %lld %.9f %.3f\n", arrays[a].name, st ? "file" : "memory", kinds[k], ops[o],
                 (long long)j.bufsize, t, j.bufsize / t / 1e9);
          fflush(stdout);
        }
        free(j.buf);
      }
      b2nd_free(arr);
      b2nd_free_ctx(ctx);
      remove(path);
    }
    free(data);
  }
  return 0;
}

typedef struct {
  b2nd_context_t *ctx;
  const void *src;
  int64_t n;
  b2nd_array_t *arr;
  void *back;
} plugin_job;
static int do_pc(void *p) {
  plugin_job *j = p;
  if (j->arr) b2nd_free(j->arr);
  j->arr = NULL;
  return b2nd_from_cbuffer(j->ctx, &j->arr, j->src, j->n);
}
static int do_pd(void *p) {
  plugin_job *j = p;
  return b2nd_to_cbuffer(j->arr, j->back, j->n);
}

/* The n-dimensional plugins on a smooth 2-D field (NDLZ on its bytes, the others on float32
   and float64), one thread. */
static int bench_plugins(double budget, const char *only) {
  const int64_t shape[2] = {1024, 1024};
  const int32_t chunk[2] = {256, 256}, block[2] = {64, 64};
  struct { const char *name; int ts; int codec; int meta; int filter; int fmeta; } cfgs[] = {
    {"ndlz", 1, BLOSC_CODEC_NDLZ, 4, 0, 0},
    {"ndlz", 1, BLOSC_CODEC_NDLZ, 8, 0, 0},
    {"zfp_acc", 4, BLOSC_CODEC_ZFP_FIXED_ACCURACY, (uint8_t)-3, 0, 0},
    {"zfp_acc", 8, BLOSC_CODEC_ZFP_FIXED_ACCURACY, (uint8_t)-3, 0, 0},
    {"zfp_prec", 4, BLOSC_CODEC_ZFP_FIXED_PRECISION, 16, 0, 0},
    {"zfp_prec", 8, BLOSC_CODEC_ZFP_FIXED_PRECISION, 24, 0, 0},
    {"zfp_rate", 4, BLOSC_CODEC_ZFP_FIXED_RATE, 30, 0, 0},
    {"zfp_rate", 8, BLOSC_CODEC_ZFP_FIXED_RATE, 30, 0, 0},
    {"ndcell", 4, BLOSC_LZ4, 5, BLOSC_FILTER_NDCELL, 4},
    {"ndcell", 8, BLOSC_ZSTD, 5, BLOSC_FILTER_NDCELL, 4},
    {"ndmean", 4, BLOSC_LZ4, 5, BLOSC_FILTER_NDMEAN, 4},
    {"ndmean", 8, BLOSC_ZSTD, 5, BLOSC_FILTER_NDMEAN, 4},
  };
  int64_t n = shape[0] * shape[1];
  for (size_t c = 0; c < sizeof cfgs / sizeof *cfgs; c++) {
    if (only && strcmp(only, cfgs[c].name) != 0) continue;
    int ts = cfgs[c].ts;
    unsigned char *data = malloc(n * ts), *back = malloc(n * ts);
    for (int64_t i = 0; i < n; i++) {
      double v = sin((i / shape[1]) * 0.01) * cos((i % shape[1]) * 0.013) * 100.0;
      if (ts == 8) ((double *)data)[i] = v;
      else if (ts == 4) ((float *)data)[i] = (float)v;
      else data[i] = (unsigned char)(((i / shape[1]) / 16 + (i % shape[1]) / 16) & 0xff);
    }
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = ts; cp.nthreads = 1; cp.clevel = 5;
    cp.compcode = cfgs[c].codec;
    cp.compcode_meta = (uint8_t)(cfgs[c].filter ? 0 : cfgs[c].meta);
    cp.clevel = cfgs[c].filter ? (uint8_t)cfgs[c].meta : 5;
    for (int f = 0; f < BLOSC2_MAX_FILTERS; f++) { cp.filters[f] = 0; cp.filters_meta[f] = 0; }
    if (cfgs[c].filter) {
      cp.filters[BLOSC2_MAX_FILTERS - 2] = (uint8_t)cfgs[c].filter;
      cp.filters_meta[BLOSC2_MAX_FILTERS - 2] = (uint8_t)cfgs[c].fmeta;
      cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
    }
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 1;
    blosc2_storage st = {.contiguous = false, .cparams = &cp, .dparams = &dp};
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunk, block, NULL, 0, NULL, 0);
    plugin_job j = {ctx, data, n * ts, NULL, back};
    int rc;
    double tc = measure(budget, do_pc, &j, &rc);
    if (rc < 0 || ctx == NULL) {
      fprintf(stderr, "error: %s ts %d: %d\n", cfgs[c].name, ts, rc);
      return 1;
    }
    double td = measure(budget, do_pd, &j, &rc);
    if (rc < 0) {
      fprintf(stderr, "error: %s ts %d decompress: %d\n", cfgs[c].name, ts, rc);
      return 1;
    }
    printf("plugin %s ts%d %d %lld %lld %.3f %.3f\n", cfgs[c].name, ts, cfgs[c].filter ? cfgs[c].fmeta : cfgs[c].meta,
           (long long)(n * ts), (long long)j.arr->sc->cbytes, n * ts / tc / 1e9, n * ts / td / 1e9);
    fflush(stdout);
    b2nd_free(j.arr);
    b2nd_free_ctx(ctx);
    free(data); free(back);
  }
  return 0;
}

/* Lazy chunks of frames on disk (contiguous file, sparse directory) read through a caller's
   context, as python-blosc2 reads blocks: a whole chunk with blosc2_decompress_ctx, and one
   block's worth of items with blosc2_getitem_ctx (16 items from each of 64 blocks of a
   chunk per call of the job). Printed in the b2nd lines' format (compare.py --b2nd). */
typedef struct { blosc2_schunk *s; blosc2_context *dctx; int32_t *out; int32_t n; int getitem; } lazy_job;
static int do_lazy(void *p) {
  lazy_job *j = p;
  uint8_t *ch; bool nf;
  int cb = blosc2_schunk_get_lazychunk(j->s, 1, &ch, &nf);
  if (cb < 0) return cb;
  int rc = 0;
  if (j->getitem) {
    for (int b = 0; b < 64 && rc >= 0; b++) rc = blosc2_getitem_ctx(j->dctx, ch, cb, b * 4096 + 7, 16, j->out, 64);
  } else {
    rc = blosc2_decompress_ctx(j->dctx, ch, cb, j->out, j->n * 4);
  }
  if (nf) free(ch);
  return rc;
}

static int bench_lazy(double budget, const char *dir) {
  const int32_t n = 1 << 20;
  int32_t *data = malloc(n * 4), *out = malloc(n * 4);
  for (int32_t i = 0; i < n; i++) data[i] = i * 3 + (int32_t)(xs() % 64);
  for (int sparse = 0; sparse < 2; sparse++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/bench-lazy.%s", dir, sparse ? "b2sframe" : "b2frame");
    blosc2_remove_urlpath(path);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4; cp.compcode = BLOSC_LZ4; cp.clevel = 5; cp.nthreads = 1; cp.blocksize = 16384;
    blosc2_storage st = {.contiguous = !sparse, .urlpath = path, .cparams = &cp};
    blosc2_schunk *s = blosc2_schunk_new(&st);
    for (int c = 0; s != NULL && c < 3; c++) blosc2_schunk_append_buffer(s, data, n * 4);
    if (s) blosc2_schunk_free(s);
    s = blosc2_schunk_open(path);
    if (s == NULL) { fprintf(stderr, "error: cannot open %s\n", path); return 1; }
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 1; dp.schunk = s;
    lazy_job j = {s, blosc2_create_dctx(dp), out, n, 0};
    for (j.getitem = 0; j.getitem < 2; j.getitem++) {
      int rc;
      double t = measure(budget, do_lazy, &j, &rc);
      if (rc < 0) { fprintf(stderr, "error: lazy %d: %d\n", j.getitem, rc); return 1; }
      long long bytes = j.getitem ? 64 * 64 : (long long)n * 4;
      printf("b2nd lazy-i32 %s %s %s %lld %.9f %.3f\n", sparse ? "sparse" : "file", j.getitem ? "64x16items" : "chunk",
             j.getitem ? "getitem" : "decompress", bytes, t, bytes / t / 1e9);
      fflush(stdout);
    }
    if (memcmp(out, data + 63 * 4096 + 7, 64) != 0) { fprintf(stderr, "error: lazy data\n"); return 1; }
    blosc2_free_ctx(j.dctx);
    blosc2_schunk_free(s);
    blosc2_remove_urlpath(path);
  }
  free(data); free(out);
  return 0;
}

typedef struct { int32_t (*k)(int32_t, int32_t, const void *, void *); int32_t ts, n; const void *src; void *dst; } kernel_job;
static int do_kernel(void *p) { kernel_job *j = p; return j->k(j->ts, j->n, j->src, j->dst); }

/* Check a round trip and print its two speed lines. */
static void quick_report(const char *name, const void *src, const void *back, int32_t n, int csize, int dsize,
                         double tc, double td) {
  if (csize <= 0 || dsize != n || memcmp(src, back, n) != 0) {
    fprintf(stderr, "%s: round trip failed (%d, %d)\n", name, csize, dsize);
    exit(1);
  }
  printf("quick %s/compress %.3f %d\n", name, n / tc / 1e9, csize);
  printf("quick %s/decompress %.3f %d\n", name, n / td / 1e9, csize);
}

/* A context made, used once and freed per call (python-blosc2's compress2, numcodecs'
   blosc_compress_ctx): what a context costs to start, its scratch and threads included. */
typedef struct { blosc2_cparams cp; blosc2_dparams dp; const void *src; int32_t n; void *dst; int32_t dn; } percall_job;
static int do_c_percall(void *a) {
  percall_job *j = a;
  blosc2_context *c = blosc2_create_cctx(j->cp);
  int rc = blosc2_compress_ctx(c, j->src, j->n, j->dst, j->dn);
  blosc2_free_ctx(c);
  return rc;
}
static int do_d_percall(void *a) {
  percall_job *j = a;
  blosc2_context *c = blosc2_create_dctx(j->dp);
  int rc = blosc2_decompress_ctx(c, j->src, j->n, j->dst, j->dn);
  blosc2_free_ctx(c);
  return rc;
}

static void quick_percall(double budget, const char *name, const void *src, int32_t n, int32_t typesize, int nthreads) {
  percall_job jc = {BLOSC2_CPARAMS_DEFAULTS, BLOSC2_DPARAMS_DEFAULTS, src, n, malloc(n + BLOSC2_MAX_OVERHEAD),
                    n + BLOSC2_MAX_OVERHEAD};
  jc.cp.compcode = BLOSC_LZ4;
  jc.cp.typesize = typesize;
  jc.cp.nthreads = jc.dp.nthreads = (int16_t)nthreads;
  int csize, dsize;
  double tc = measure(budget, do_c_percall, &jc, &csize);
  unsigned char *back = malloc(n);
  percall_job jd = jc;
  jd.src = jc.dst; jd.n = csize; jd.dst = back; jd.dn = n;
  double td = measure(budget, do_d_percall, &jd, &dsize);
  quick_report(name, src, back, n, csize, dsize, tc, td);
  free(jc.dst); free(back);
}

/* The parameters of one configuration of the matrix (the filter in the last slot). */
static blosc2_cparams matrix_cparams(int codec, int filter, int clevel, int32_t typesize, int nthreads) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = typesize;
  cp.nthreads = (int16_t)nthreads;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filter;
  return cp;
}
static blosc2_dparams matrix_dparams(int nthreads) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  return dp;
}

/* One configuration of the matrix: compression and decompression speed lines. */
static void quick_chunk(double budget, const char *name, const void *src, int32_t n, int32_t typesize, int codec,
                        int filter, int clevel, int nthreads) {
  blosc2_cparams cp = matrix_cparams(codec, filter, clevel, typesize, nthreads);
  blosc2_dparams dp = matrix_dparams(nthreads);
  blosc2_context *cc = blosc2_create_cctx(cp), *dc = blosc2_create_dctx(dp);
  unsigned char *comp = malloc(n + BLOSC2_MAX_OVERHEAD), *back = malloc(n);
  job jc = {cc, src, n, comp, n + BLOSC2_MAX_OVERHEAD, &linked};
  int csize;
  double tc = measure(budget, do_c, &jc, &csize);
  job jd = {dc, comp, csize, back, n, &linked};
  int dsize;
  double td = measure(budget, do_d, &jd, &dsize);
  quick_report(name, src, back, n, csize, dsize, tc, td);
  free(comp); free(back);
  blosc2_free_ctx(cc); blosc2_free_ctx(dc);
}

static int bench_quick(double budget) {
  int32_t (*kernels[4])(int32_t, int32_t, const void *, void *) = {blosc2_shuffle, blosc2_unshuffle,
                                                                   blosc2_bitshuffle, blosc2_bitunshuffle};
  const char *knames[4] = {"shuffle", "unshuffle", "bitshuffle", "bitunshuffle"};
  const int32_t sizes[2] = {32 << 10, 256 << 10};
  const int32_t typesizes[4] = {2, 4, 8, 16};
  unsigned char *a = malloc(256 << 10), *b = malloc(256 << 10);
  for (int i = 0; i < 256 << 10; i++) a[i] = (unsigned char)(xs() & 0x0f);
  for (int k = 0; k < 4; k++)
    for (int z = 0; z < 2; z++)
      for (int t = 0; t < 4; t++) {
        kernel_job j = {kernels[k], typesizes[t], sizes[z], a, b};
        int rc;
        double dt = measure(budget, do_kernel, &j, &rc);
        if (rc < 0) { fprintf(stderr, "%s failed: %d\n", knames[k], rc); return 1; }
        printf("quick kernel/%s/ts%d/%dKiB %.3f\n", knames[k], typesizes[t], sizes[z] >> 10, sizes[z] / dt / 1e9);
      }
  free(a); free(b);

  float *smooth = malloc(N);
  for (int i = 0; i < N / 4; i++) smooth[i] = (float)(sin(i * 1e-3) * 100.0 + (xs() % 16) * 1e-4);
  int64_t *ramp = malloc(N);
  for (int i = 0; i < N / 8; i++) ramp[i] = (int64_t)i * 3;
  unsigned char *rnd = malloc(N), *out = malloc(N);
  for (int i = 0; i < N; i++) rnd[i] = (unsigned char)xs();
  {
    job j = {NULL, smooth, N, out, N};
    int rc;
    double t = measure(budget, do_m, &j, &rc);
    printf("quick memcpy-4MiB %.3f\n", N / t / 1e9);
  }
  /* data set (0 smooth-f32, 1 ramp-i64, 2 random), codec, filter, clevel, threads */
  static const struct { int data, codec, filter, clevel, nthreads; } rows[] = {
    {1, BLOSC_LZ4, BLOSC_SHUFFLE, 5, 1},     {1, BLOSC_BLOSCLZ, BLOSC_SHUFFLE, 5, 1},
    {1, BLOSC_BLOSCLZ, BLOSC_NOFILTER, 5, 1}, {0, BLOSC_BLOSCLZ, BLOSC_SHUFFLE, 5, 1},
    {0, BLOSC_LZ4, BLOSC_SHUFFLE, 5, 1},     {0, BLOSC_LZ4, BLOSC_BITSHUFFLE, 5, 1},
    {0, BLOSC_ZSTD, BLOSC_SHUFFLE, 5, 1},    {0, BLOSC_ZLIB, BLOSC_SHUFFLE, 1, 1},
    {0, BLOSC_BLOSCLZ, BLOSC_SHUFFLE, 5, 2}, {0, BLOSC_LZ4, BLOSC_SHUFFLE, 5, 2},
    {2, BLOSC_LZ4, BLOSC_NOFILTER, 5, 1},    {2, BLOSC_BLOSCLZ, BLOSC_SHUFFLE, 5, 2},
  };
  const void *data[3] = {smooth, ramp, rnd};
  const char *dnames[3] = {"smooth-f32", "ramp-i64", "random"};
  const int32_t dtypesizes[3] = {4, 8, 4};
  const char *fnames[3] = {"nofilter", "shuffle", "bitshuffle"};
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    const char *cname;
    blosc2_compcode_to_compname(rows[r].codec, &cname);
    char name[96];
    snprintf(name, sizeof name, "%s/%s/%s/%d/%dt", dnames[rows[r].data], cname, fnames[rows[r].filter],
             rows[r].clevel, rows[r].nthreads);
    quick_chunk(budget, name, data[rows[r].data], N, dtypesizes[rows[r].data], rows[r].codec, rows[r].filter,
                rows[r].clevel, rows[r].nthreads);
  }
  quick_percall(budget, "percall/ramp-i64-256KiB/lz4/shuffle/5/1t", ramp, 256 << 10, 8, 1);
  quick_percall(budget, "percall/ramp-i64-1MiB/lz4/shuffle/5/2t", ramp, 1 << 20, 8, 2);
  free(smooth); free(ramp); free(rnd); free(out);
  return 0;
}

/* The matrix's data sets (the rainfall grid as read from `rain`, when given; the others
 * 4 MiB): smooth float32, an int64 ramp, the grid, random bytes. Returns how many. */
static int make_sets(const char *rain, dataset *sets) {
  int nsets = 0;
  rng = 88172645463325252ULL;
  float *smooth = malloc(N);
  for (int i = 0; i < N / 4; i++) smooth[i] = (float)(sin(i * 1e-3) * 100.0 + (xs() % 16) * 1e-4);
  sets[nsets++] = (dataset){"smooth-f32", (unsigned char *)smooth, N, 4};
  int64_t *ramp = malloc(N);
  for (int i = 0; i < N / 8; i++) ramp[i] = (int64_t)i * 3;
  sets[nsets++] = (dataset){"ramp-i64", (unsigned char *)ramp, N, 8};
  if (rain) {
    FILE *f = fopen(rain, "rb");
    if (f) {
      unsigned char *buf = malloc(1 << 20);
      int32_t n = (int32_t)fread(buf, 1, 1 << 20, f);
      fclose(f);
      sets[nsets++] = (dataset){"rainfall-f32", buf, n, 4};
    }
  }
  unsigned char *rnd = malloc(N);
  for (int i = 0; i < N; i++) rnd[i] = (unsigned char)xs();
  sets[nsets++] = (dataset){"random", rnd, N, 4};
  return nsets;
}

/* One configuration with each library in turn (compression, then decompression, in
 * measure_turns slices), each library's output checked, one line per library:
 *   [label] dataset codec filter clevel nthreads nbytes cbytes cspeed_GBps dspeed_GBps */
static int run_config(double budget, const dataset *set, const char *cname, const char *fname, blosc2_cparams cp,
                      blosc2_dparams dp, const api *libs, int nlibs, unsigned char **comp, unsigned char *back) {
  blosc2_context *cc[2], *dc[2];
  int cbytes[2], dbytes[2];
  double tc[2], td[2];
  for (int k = 0; k < nlibs; k++) {
    cc[k] = libs[k].create_cctx(cp);
    dc[k] = libs[k].create_dctx(dp);
  }
  job jc[2], jd[2];
  void *args[2];
  for (int k = 0; k < nlibs; k++) {
    jc[k] = (job){cc[k], set->data, set->n, comp[k], N + BLOSC2_MAX_OVERHEAD, &libs[k]};
    args[k] = &jc[k];
  }
  measure_turns(budget, do_c, args, nlibs, tc, cbytes);
  for (int k = 0; k < nlibs; k++) {
    jd[k] = (job){dc[k], comp[k], cbytes[k], back, N, &libs[k]};
    args[k] = &jd[k];
  }
  measure_turns(budget, do_d, args, nlibs, td, dbytes);
  for (int k = 0; k < nlibs; k++) {
    /* Both decompressed into `back` in turns: check each library's own output (lossy
       pipelines only against the other library's). */
    dbytes[k] = do_d(&jd[k]);
    int lossy = 0;
    for (int f = 0; f < BLOSC2_MAX_FILTERS; f++)
      lossy |= cp.filters[f] == BLOSC_TRUNC_PREC || cp.filters[f] == BLOSC_FILTER_INT_TRUNC;
    if (cbytes[k] <= 0 || dbytes[k] != set->n || (!lossy && memcmp(back, set->data, set->n) != 0) ||
        (k > 0 && (cbytes[k] != cbytes[0] || memcmp(comp[k], comp[0], cbytes[k]) != 0) && lossy)) {
      fprintf(stderr, "error: %s %s %s %s %d: c=%d d=%d\n", libs[k].label, set->name, cname, fname, cp.clevel,
              cbytes[k], dbytes[k]);
      return 1;
    }
  }
  for (int k = 0; k < nlibs; k++) {
    printf("%s%s%s %s %s %d %d %d %d %.3f %.3f\n", nlibs > 1 ? libs[k].label : "", nlibs > 1 ? " " : "", set->name,
           cname, fname, cp.clevel, cp.nthreads, set->n, cbytes[k], set->n / tc[k] / 1e9, set->n / td[k] / 1e9);
    libs[k].free_ctx(cc[k]);
    libs[k].free_ctx(dc[k]);
  }
  fflush(stdout);
  return 0;
}

/* The filter pipelines outside the matrix (bench filters: delta, precision truncation,
 * bytedelta, integer truncation, each with and without byte shuffle where users combine
 * them), clevel 5, one thread, BloscLZ, LZ4 and zstd, on the matrix's data sets but random
 * bytes; lines in the matrix's format, the filter named by its stages in order. */
static int bench_pipelines(double budget, const char *rain, const api *libs, int nlibs) {
  for (int l = 0; l < nlibs; l++) libs[l].init();
  dataset sets[4];
  int nsets = make_sets(rain, sets) - 1; /* not the random bytes */
  /* Whole items only: the reference's delta does not restore the bytes after the last item
     (REFERENCE-DEFECTS.md), and the rainfall grid's file ends 3 bytes into one. */
  for (int s = 0; s < nsets; s++) sets[s].n -= sets[s].n % sets[s].typesize;
  unsigned char *comp[2] = {malloc(N + BLOSC2_MAX_OVERHEAD), malloc(N + BLOSC2_MAX_OVERHEAD)};
  unsigned char *back = malloc(N);
  /* Stages before the codec, by slot (4 then 5); meta -1: the data set's typesize; ints:
     only on integer data, floats: only on float data. */
  struct { const char *name; int f4, m4, f5, m5, ints, floats; } pipes[] = {
    {"delta", 0, 0, BLOSC_DELTA, 0, 0, 0},
    {"shuffle+delta", BLOSC_SHUFFLE, 0, BLOSC_DELTA, 0, 0, 0},
    {"trunc_prec+shuffle", BLOSC_TRUNC_PREC, 10, BLOSC_SHUFFLE, 0, 0, 1},
    {"bytedelta", 0, 0, BLOSC_FILTER_BYTEDELTA, -1, 0, 0},
    {"shuffle+bytedelta", BLOSC_SHUFFLE, 0, BLOSC_FILTER_BYTEDELTA, -1, 0, 0},
    {"bitshuffle+bytedelta", BLOSC_BITSHUFFLE, 0, BLOSC_FILTER_BYTEDELTA, -1, 0, 0},
    {"int_trunc+shuffle", BLOSC_FILTER_INT_TRUNC, (uint8_t)-8, BLOSC_SHUFFLE, 0, 1, 0},
  };
  const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_ZSTD};
  const char *cnames[] = {"blosclz", "lz4", "zstd"};
  for (int s = 0; s < nsets; s++) {
    int is_int = strcmp(sets[s].name, "ramp-i64") == 0;
    for (size_t p = 0; p < sizeof pipes / sizeof *pipes; p++) {
      if ((pipes[p].ints && !is_int) || (pipes[p].floats && is_int)) continue;
      for (int c = 0; c < 3; c++) {
        blosc2_cparams cp = matrix_cparams(codecs[c], BLOSC_NOFILTER, 5, sets[s].typesize, 1);
        for (int f = 0; f < BLOSC2_MAX_FILTERS; f++) cp.filters[f] = cp.filters_meta[f] = 0;
        cp.filters[4] = (uint8_t)pipes[p].f4;
        cp.filters_meta[4] = (uint8_t)(pipes[p].m4 < 0 ? sets[s].typesize : pipes[p].m4);
        cp.filters[5] = (uint8_t)pipes[p].f5;
        cp.filters_meta[5] = (uint8_t)(pipes[p].m5 < 0 ? sets[s].typesize : pipes[p].m5);
        if (run_config(budget, &sets[s], cnames[c], pipes[p].name, cp, matrix_dparams(1), libs, nlibs, comp, back) != 0)
          return 1;
      }
    }
  }
  for (int l = 0; l < nlibs; l++) libs[l].destroy();
  return 0;
}

/* The type sizes the matrix's data sets leave out (bench typesizes): 1-byte samples (a
 * smooth 8-bit signal with noise in its low bit), 2-byte integers (a smooth 16-bit signal)
 * and 16-byte items (complex128: pairs of smooth doubles), 4 MiB each, every codec, no
 * filter, byte shuffle and bit shuffle, clevel 5, one and two threads; lines in the
 * matrix's format. */
static int bench_typesizes(double budget, const api *libs, int nlibs) {
  for (int l = 0; l < nlibs; l++) libs[l].init();
  rng = 88172645463325252ULL;
  unsigned char *u8 = malloc(N);
  for (int i = 0; i < N; i++) u8[i] = (unsigned char)(sin(i * 1e-3) * 60.0 + 128.0 + (xs() & 1));
  int16_t *i16 = malloc(N);
  for (int i = 0; i < N / 2; i++) i16[i] = (int16_t)(sin(i * 1e-3) * 12000.0 + (double)(xs() % 8));
  double *c128 = malloc(N);
  for (int i = 0; i < N / 16; i++) {
    c128[2 * i] = sin(i * 1e-3) * 100.0;
    c128[2 * i + 1] = cos(i * 7e-4) * 3.0;
  }
  dataset sets[] = {{"smooth-u8", u8, N, 1}, {"smooth-i16", (unsigned char *)i16, N, 2},
                    {"complex-c128", (unsigned char *)c128, N, 16}};
  unsigned char *comp[2] = {malloc(N + BLOSC2_MAX_OVERHEAD), malloc(N + BLOSC2_MAX_OVERHEAD)};
  unsigned char *back = malloc(N);
  const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  const char *cnames[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  const int filters[] = {BLOSC_NOFILTER, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE};
  const char *fnames[] = {"nofilter", "shuffle", "bitshuffle"};
  for (size_t s = 0; s < sizeof sets / sizeof *sets; s++)
    for (int c = 0; c < 5; c++)
      for (int f = 0; f < 3; f++)
        for (int nt = 1; nt <= 2; nt++) {
          blosc2_cparams cp = matrix_cparams(codecs[c], filters[f], 5, sets[s].typesize, nt);
          if (run_config(budget, &sets[s], cnames[c], fnames[f], cp, matrix_dparams(nt), libs, nlibs, comp, back) != 0)
            return 1;
        }
  for (int l = 0; l < nlibs; l++) libs[l].destroy();
  return 0;
}

/* The codec matrix (data kinds x codecs x filters x clevels x 1-2 threads), one line per
 * configuration and library (prefixed with the library's label when there are two):
 *   dataset codec filter clevel nthreads nbytes cbytes cspeed_GBps dspeed_GBps
 * With two libraries each configuration is measured with one, then the other, before the
 * next: a slow spell of this shared machine then hits both alike (separate processes per
 * library differed by 10-30% from run to run on the same code). */
static int bench_matrix(double budget, const char *rain, const char *only, const api *libs, int nlibs) {
  for (int l = 0; l < nlibs; l++) libs[l].init();
  dataset sets[4];
  int nsets = make_sets(rain, sets);
  float *smooth = (float *)sets[0].data;
  unsigned char *comp[2] = {malloc(N + BLOSC2_MAX_OVERHEAD), malloc(N + BLOSC2_MAX_OVERHEAD)};
  unsigned char *back = malloc(N);
  for (int l = 0; l < nlibs; l++) {
    job j = {NULL, smooth, N, back, N, NULL};
    int rc;
    double t = measure(budget, do_m, &j, &rc);
    printf("%s%smemcpy - - - - %d %d %.3f %.3f\n", nlibs > 1 ? libs[l].label : "", nlibs > 1 ? " " : "", N, N,
           N / t / 1e9, N / t / 1e9);
  }
  const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  const char *cnames[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  const int filters[] = {BLOSC_NOFILTER, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE};
  const char *fnames[] = {"nofilter", "shuffle", "bitshuffle"};
  const int clevels[] = {1, 5, 9};
  for (int s = 0; s < nsets; s++)
    for (int c = 0; c < 5; c++)
      for (int f = 0; f < 3 && (!only || strcmp(only, cnames[c]) == 0); f++)
        for (int l = 0; l < 3; l++)
          for (int nt = 1; nt <= 2; nt++) {
            blosc2_cparams cp = matrix_cparams(codecs[c], filters[f], clevels[l], sets[s].typesize, nt);
            if (run_config(budget, &sets[s], cnames[c], fnames[f], cp, matrix_dparams(nt), libs, nlibs, comp, back) != 0)
              return 1;
          }
  for (int l = 0; l < nlibs; l++) libs[l].destroy();
  return 0;
}

/* Load a library's matrix calls (see side_by_side.h). */
static int open_api(api *a, const char *path, const char *label) {
  a->label = label;
  void **slots[] = {(void **)&a->init, (void **)&a->destroy, (void **)&a->create_cctx, (void **)&a->create_dctx,
                    (void **)&a->free_ctx, (void **)&a->compress_ctx, (void **)&a->decompress_ctx};
  const char *names[] = {"blosc2_init", "blosc2_destroy", "blosc2_create_cctx", "blosc2_create_dctx",
                         "blosc2_free_ctx", "blosc2_compress_ctx", "blosc2_decompress_ctx"};
  return open_side(path, label, names, slots, 7, 5);
}

/* The two libraries of a mode that loads both (bench MODE OURS.so REF.so ...), into libs in
 * the order they go first: the reference first when argument `order_at` is "ref-first".
 * 2 (after printing usage) when the libraries are not named, 1 when one does not load. */
static int open_pair(int argc, char **argv, int order_at, const char *usage, api libs[2]) {
  if (argc < 4) {
    fprintf(stderr, "usage: bench %s\n", usage);
    return 2;
  }
  int r = argc > order_at && strcmp(argv[order_at], "ref-first") == 0;
  if (open_api(&libs[r], argv[2], "ours") != 0 || open_api(&libs[!r], argv[3], "ref") != 0) return 1;
  return 0;
}

/* One configuration of the matrix with up to 8 libraries (bench one), for changes whose
 * effect is smaller than the matrix's noise: `rounds` rounds, in each of which every library
 * compresses for `slice` seconds, then decompresses for as long (the order reversed every
 * other round); prints per library the median over the rounds of each throughput, and the
 * fastest single decompression (the matrix's statistic). With BENCH_DEST_OFFSET=N the
 * destination of decompression starts N bytes past a page boundary (the matrix's heap puts
 * its 4 MiB buffers 16 bytes past one), compressed chunks likewise. */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static int bench_one(const char *rain, const char *set, const char *codec, int filter, int clevel, int nthreads,
                     int rounds, double slice, const api *libs, int nlibs) {
  dataset sets[4];
  int nsets = make_sets(rain, sets), s = -1, c = blosc2_compname_to_compcode(codec);
  for (int i = 0; i < nsets; i++)
    if (strcmp(sets[i].name, set) == 0) s = i;
  if (s < 0 || c < 0 || rounds < 1 || rounds > 200) {
    fprintf(stderr, "bench one: unknown data set or codec, or rounds not in 1..200\n");
    return 2;
  }
  const char *off = getenv("BENCH_DEST_OFFSET");
  size_t o = off ? (size_t)atoi(off) % 4096 : 16;
  /* The matrix's output capacity (N + overhead, not n + overhead): with room for the larger
   * chunk, an incompressible chunk whose size is not a multiple of its typesize is written as
   * blocks (the rainfall grid: two) rather than copied whole behind its header. */
  int32_t n = sets[s].n, cap = (n > N ? n : N) + BLOSC2_MAX_OVERHEAD;
  blosc2_context *cc[8], *dc[8];
  unsigned char *comp[8], *back[8];
  int cbytes[8];
  double tc[8][200], td[8][200], best[8];
  for (int k = 0; k < nlibs; k++) {
    libs[k].init();
    cc[k] = libs[k].create_cctx(matrix_cparams(c, filter, clevel, sets[s].typesize, nthreads));
    dc[k] = libs[k].create_dctx(matrix_dparams(nthreads));
    comp[k] = (unsigned char *)aligned_alloc(4096, (size_t)cap + 8192) + o;
    back[k] = (unsigned char *)aligned_alloc(4096, (size_t)n + 8192) + o;
    cbytes[k] = libs[k].compress_ctx(cc[k], sets[s].data, n, comp[k], cap);
    if (cbytes[k] <= 0 || libs[k].decompress_ctx(dc[k], comp[k], cbytes[k], back[k], n) != n ||
        memcmp(back[k], sets[s].data, n) != 0) {
      fprintf(stderr, "bench one: %s failed the round trip\n", libs[k].label);
      return 1;
    }
    best[k] = 1e30;
  }
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < nlibs; i++) {
      int k = r & 1 ? nlibs - 1 - i : i;
      int calls = 0;
      double t0 = now(), t = t0;
      do {
        libs[k].compress_ctx(cc[k], sets[s].data, n, comp[k], cap);
        calls++;
        t = now();
      } while (t - t0 < slice);
      tc[k][r] = (double)n * calls / (t - t0) / 1e9;
      calls = 0;
      t0 = t = now();
      do {
        double s0 = t;
        libs[k].decompress_ctx(dc[k], comp[k], cbytes[k], back[k], n);
        calls++;
        t = now();
        if (t - s0 < best[k]) best[k] = t - s0;
      } while (t - t0 < slice);
      td[k][r] = (double)n * calls / (t - t0) / 1e9;
    }
  for (int k = 0; k < nlibs; k++) {
    qsort(tc[k], rounds, sizeof(double), cmp_double);
    qsort(td[k], rounds, sizeof(double), cmp_double);
    printf("%s %s %s %d %d %d %d %d comp %.3f decomp %.3f best-decomp %.3f", libs[k].label, set, codec, filter,
           clevel, nthreads, n, cbytes[k], tc[k][rounds / 2], td[k][rounds / 2], n / best[k] / 1e9);
    if (k > 0)
      printf("  x first: comp %.3f decomp %.3f best-decomp %.3f", tc[k][rounds / 2] / tc[0][rounds / 2],
             td[k][rounds / 2] / td[0][rounds / 2], best[0] / best[k]);
    printf("\n");
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "quick") == 0) {
    blosc2_init();
    int rc = bench_quick(argc > 2 ? atof(argv[2]) : 0.1);
    blosc2_destroy();
    return rc;
  }
  if (argc > 1 && strcmp(argv[1], "plugins") == 0) {
    blosc2_init();
    int rc = bench_plugins(argc > 2 ? atof(argv[2]) : 0.15, argc > 3 ? argv[3] : NULL);
    blosc2_destroy();
    return rc;
  }
  if (argc > 1 && strcmp(argv[1], "lazy") == 0) {
    blosc2_init();
    int rc = bench_lazy(argc > 2 ? atof(argv[2]) : 0.15, argc > 3 ? argv[3] : ".");
    blosc2_destroy();
    return rc;
  }
  if (argc > 1 && strcmp(argv[1], "b2nd") == 0) {
    blosc2_init();
    int rc = bench_b2nd(argc > 2 ? atof(argv[2]) : 0.15, argc > 3 ? argv[3] : ".");
    blosc2_destroy();
    return rc;
  }
  if (argc > 1 && strcmp(argv[1], "pair") == 0) {
    api libs[2];
    int rc = open_pair(argc, argv, 7, "pair OURS.so REF.so [seconds] [rainfall.bin] [codec|all] [ref-first]", libs);
    if (rc != 0) return rc;
    const char *only = argc > 6 && strcmp(argv[6], "all") != 0 ? argv[6] : NULL;
    return bench_matrix(argc > 4 ? atof(argv[4]) : 0.15, argc > 5 ? argv[5] : NULL, only, libs, 2);
  }
  if (argc > 1 && strcmp(argv[1], "filters") == 0) {
    api libs[2];
    int rc = open_pair(argc, argv, 6, "filters OURS.so REF.so [seconds] [rainfall.bin] [ref-first]", libs);
    if (rc != 0) return rc;
    return bench_pipelines(argc > 4 ? atof(argv[4]) : 0.15, argc > 5 ? argv[5] : NULL, libs, 2);
  }
  if (argc > 1 && strcmp(argv[1], "typesizes") == 0) {
    api libs[2];
    int rc = open_pair(argc, argv, 5, "typesizes OURS.so REF.so [seconds] [ref-first]", libs);
    if (rc != 0) return rc;
    return bench_typesizes(argc > 4 ? atof(argv[4]) : 0.15, libs, 2);
  }
  if (argc > 1 && strcmp(argv[1], "one") == 0) {
    if (argc < 10) {
      fprintf(stderr, "usage: bench one RAINFALL.bin DATASET CODEC FILTER CLEVEL NTHREADS ROUNDS LIB.so...\n");
      return 2;
    }
    api libs[8];
    int nlibs = argc - 9 > 8 ? 8 : argc - 9;
    for (int k = 0; k < nlibs; k++)
      if (open_api(&libs[k], argv[9 + k], argv[9 + k]) != 0) return 1;
    return bench_one(argv[2], argv[3], argv[4], atoi(argv[5]), atoi(argv[6]), atoi(argv[7]), atoi(argv[8]), 0.05,
                     libs, nlibs);
  }
  return bench_matrix(argc > 1 ? atof(argv[1]) : 0.15, argc > 2 ? argv[2] : NULL, argc > 3 ? argv[3] : NULL, &linked, 1);
}
