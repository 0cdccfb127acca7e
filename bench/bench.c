/* Compression benchmark, compiled once against the public headers and run with either
 * libblosc2 on LD_LIBRARY_PATH (ours or the reference). Prints one line per configuration:
 *   dataset codec filter clevel nthreads nbytes cbytes cspeed_GBps dspeed_GBps
 * plus a memcpy line (the ceiling). Usage: bench [seconds_per_measure] [rainfall.bin]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "blosc2.h"

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

typedef struct { blosc2_context *ctx; const void *src; int32_t n; void *dst; int32_t dn; } job;
static int do_c(void *a) { job *j = a; return blosc2_compress_ctx(j->ctx, j->src, j->n, j->dst, j->dn); }
static int do_d(void *a) { job *j = a; return blosc2_decompress_ctx(j->ctx, j->src, j->n, j->dst, j->dn); }
static int do_m(void *a) { job *j = a; memcpy(j->dst, j->src, j->n); return j->n; }

int main(int argc, char **argv) {
  double budget = argc > 1 ? atof(argv[1]) : 0.15;
  const char *rain = argc > 2 ? argv[2] : NULL;
  /* Optional: run one codec only (so a script can alternate libraries codec by codec). */
  const char *only = argc > 3 ? argv[3] : NULL;
  blosc2_init();
  const int N = 4 << 20;
  dataset sets[4];
  int nsets = 0;
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

  unsigned char *comp = malloc(N + BLOSC2_MAX_OVERHEAD);
  unsigned char *back = malloc(N);
  {
    job j = {NULL, smooth, N, back, N};
    int rc;
    double t = measure(budget, do_m, &j, &rc);
    printf("memcpy - - - - %d %d %.3f %.3f\n", N, N, N / t / 1e9, N / t / 1e9);
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
            blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
            cp.compcode = codecs[c];
            cp.clevel = clevels[l];
            cp.typesize = sets[s].typesize;
            cp.nthreads = nt;
            cp.filters[BLOSC2_MAX_FILTERS - 1] = filters[f];
            blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
            dp.nthreads = nt;
            blosc2_context *cc = blosc2_create_cctx(cp), *dc = blosc2_create_dctx(dp);
            job jc = {cc, sets[s].data, sets[s].n, comp, N + BLOSC2_MAX_OVERHEAD};
            int cbytes;
            double tc = measure(budget, do_c, &jc, &cbytes);
            job jd = {dc, comp, cbytes, back, N};
            int dbytes;
            double td = measure(budget, do_d, &jd, &dbytes);
            if (cbytes <= 0 || dbytes != sets[s].n) {
              fprintf(stderr, "error: %s %s %s %d: c=%d d=%d\n", sets[s].name, cnames[c], fnames[f], clevels[l], cbytes, dbytes);
              return 1;
            }
            printf("%s %s %s %d %d %d %d %.3f %.3f\n", sets[s].name, cnames[c], fnames[f], clevels[l], nt,
                   sets[s].n, cbytes, sets[s].n / tc / 1e9, sets[s].n / td / 1e9);
            fflush(stdout);
            blosc2_free_ctx(cc);
            blosc2_free_ctx(dc);
          }
  blosc2_destroy();
  return 0;
}
