/* c-blosc 1.x API benchmark: compiled once against blosc.h. Uses the global API
 * (blosc_set_compressor/nthreads, blosc_compress, blosc_decompress), as python-blosc,
 * numcodecs, PyTables and the HDF5 plugin do.
 *   bench1 CODEC   one line per (data, filter, clevel, threads), with the libblosc.so.1 found
 *                  on LD_LIBRARY_PATH:
 *                  data codec filter clevel threads ratio comp_GBps decomp_GBps
 *   bench1 pair OURS.so REF.so CODEC [ours-first|ref-first]
 *                  both libraries loaded in this process (dlopen), every configuration
 *                  measured with one and then the other; the same lines prefixed with "ours"
 *                  or "ref" (scripts/bench-blosc1.sh). */
#define _GNU_SOURCE /* RTLD_DEEPBIND, dladdr */
#include <blosc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "side_by_side.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define N (4u << 20)

/* The calls made, from the linked library or from one opened with dlopen. */
typedef struct {
  const char *label;
  void (*init)(void);
  void (*destroy)(void);
  int (*set_compressor)(const char *);
  int (*set_nthreads)(int);
  int (*compress)(int, int, size_t, size_t, const void *, void *, size_t);
  int (*decompress)(const void *, void *, size_t);
} api;

/* Load a library's calls (see side_by_side.h). */
static int open_api(api *a, const char *path, const char *label) {
  a->label = label;
  void **slots[] = {(void **)&a->init, (void **)&a->destroy, (void **)&a->set_compressor,
                    (void **)&a->set_nthreads, (void **)&a->compress, (void **)&a->decompress};
  const char *names[] = {"blosc_init", "blosc_destroy", "blosc_set_compressor",
                         "blosc_set_nthreads", "blosc_compress", "blosc_decompress"};
  return open_side(path, label, names, slots, 6, 4);
}

int main(int argc, char **argv) {
  api libs[2] = {{"", blosc_init, blosc_destroy, blosc_set_compressor, blosc_set_nthreads, blosc_compress,
                  blosc_decompress}};
  int nlibs = 1;
  const char *codec = argc > 1 ? argv[1] : "blosclz";
  if (argc > 1 && strcmp(argv[1], "pair") == 0) {
    if (argc < 5) {
      fprintf(stderr, "usage: bench1 pair OURS.so REF.so CODEC [ours-first|ref-first]\n");
      return 2;
    }
    int r = argc > 5 && strcmp(argv[5], "ref-first") == 0;
    if (open_api(&libs[r], argv[2], "ours") != 0 || open_api(&libs[!r], argv[3], "ref") != 0) return 1;
    nlibs = 2;
    codec = argv[4];
  }
  static uint8_t src[3][N], dest[2][N + 16], back[N];
  const char *names[3] = {"smooth-f32", "ramp-i64", "random"};
  const size_t ts[3] = {4, 8, 4};
  uint64_t x = 88172645463325252ULL;
  for (size_t i = 0; i < N / 4; i++) {
    float f = (float)(sin((double)i / 300.0) * 1000.0);
    memcpy(src[0] + 4 * i, &f, 4);
    src[0][4 * i] ^= (uint8_t)(i * 7);
  }
  for (size_t i = 0; i < N / 8; i++) { int64_t v = (int64_t)i * 3; memcpy(src[1] + 8 * i, &v, 8); }
  for (size_t i = 0; i < N; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; src[2][i] = (uint8_t)x; }
  for (int l = 0; l < nlibs; l++) {
    libs[l].init();
    if (libs[l].set_compressor(codec) < 0) return 1;
  }
  static const char *filters[3] = {"nofilter", "shuffle", "bitshuffle"};
  const int clevels[3] = {1, 5, 9};
  for (int d = 0; d < 3; d++)
    for (int f = 0; f < 3; f++)
      for (int c = 0; c < 3; c++)
        for (int th = 1; th <= 2; th++)
          for (int l = 0; l < nlibs; l++) {
            const api *a = &libs[l];
            a->set_nthreads(th);
            double best_c = 1e9, best_d = 1e9;
            int csize = 0;
            /* Compression and decompression each get their own time budget: a slow
             * compression (LZ4HC, zlib or zstd at clevel 9 take 0.1-0.4 s on 4 MiB) would
             * otherwise leave decompression only three samples, and a 4 MiB copy sampled three
             * times moves by 20% from run to run. */
            double t_end = now() + 0.12;
            int reps = 0;
            do {
              double t0 = now();
              csize = a->compress(clevels[c], f, ts[d], N, src[d], dest[l], sizeof dest[l]);
              double t1 = now();
              if (csize <= 0) { fprintf(stderr, "compression failed %d\n", csize); return 1; }
              if (t1 - t0 < best_c) best_c = t1 - t0;
              reps++;
            } while (now() < t_end || reps < 3);
            t_end = now() + 0.12;
            reps = 0;
            do {
              double t1 = now();
              int dsize = a->decompress(dest[l], back, N);
              double t2 = now();
              if (dsize != (int)N) { fprintf(stderr, "decompression failed %d\n", dsize); return 1; }
              if (t2 - t1 < best_d) best_d = t2 - t1;
              reps++;
            } while (now() < t_end || reps < 3);
            if (memcmp(back, src[d], N) != 0) { fprintf(stderr, "roundtrip\n"); return 1; }
            printf("%s%s%s %s %s %d %d %.2f %.3f %.3f\n", a->label, nlibs > 1 ? " " : "", names[d], codec,
                   filters[f], clevels[c], th, (double)N / csize, N / best_c / 1e9, N / best_d / 1e9);
          }
  for (int l = 0; l < nlibs; l++) libs[l].destroy();
  return 0;
}
